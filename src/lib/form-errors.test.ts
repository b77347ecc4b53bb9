import { describe, expect, it } from "vitest";
import { emailRequestSchema, loginSchema, registerSchema } from "../../contract/account.ts";
import { VALIDATION } from "../../contract/messages.ts";
import { firstFieldErrors } from "./form-errors.ts";

const valid = {
  email: "ada@example.com",
  username: "ada",
  password: "Str0ng!pass",
  confirmPassword: "Str0ng!pass",
};

describe("firstFieldErrors shows the first broken rule per field (spec section 5)", () => {
  it.each([
    ["", VALIDATION.passwordRequired],
    ["Ab1!", VALIDATION.passwordTooShort],
    [`Ab1!${"x".repeat(27)}`, VALIDATION.passwordTooLong],
    ["abcdefg1!", VALIDATION.passwordUppercase],
    ["ABCDEFG1!", VALIDATION.passwordLowercase],
    ["Abcdefgh!", VALIDATION.passwordNumber],
    ["Abcdefgh1", VALIDATION.passwordSpecial],
  ])("password %j -> %s", (password, message) => {
    expect(firstFieldErrors(registerSchema, { ...valid, password, confirmPassword: password }).password).toBe(
      message,
    );
  });

  it("reports every field's first message at once", () => {
    expect(
      firstFieldErrors(registerSchema, { email: "", username: "", password: "", confirmPassword: "" }),
    ).toEqual({
      email: VALIDATION.emailRequired,
      username: VALIDATION.usernameRequired,
      password: VALIDATION.passwordRequired,
      confirmPassword: VALIDATION.confirmPasswordRequired,
    });
  });

  it("checks the confirmation and the e-mail format", () => {
    expect(firstFieldErrors(registerSchema, { ...valid, confirmPassword: "Str0ng!pasz" })).toEqual({
      confirmPassword: VALIDATION.passwordsMustMatch,
    });
    expect(firstFieldErrors(emailRequestSchema, { email: "nope" })).toEqual({
      email: VALIDATION.emailInvalid,
    });
    expect(firstFieldErrors(loginSchema, { username: "", password: "" })).toEqual({
      username: VALIDATION.usernameRequired,
      password: VALIDATION.passwordRequired,
    });
    expect(firstFieldErrors(registerSchema, valid)).toEqual({});
  });
});
