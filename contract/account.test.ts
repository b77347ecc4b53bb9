import { describe, expect, it } from "vitest";
import {
  changePasswordFormSchema,
  changePasswordSchema,
  emailRequestSchema,
  emailSchema,
  FREE_SUBSCRIPTION,
  loginSchema,
  passwordResetSchema,
  passwordSchema,
  registerSchema,
  resetPasswordFormSchema,
  usernameSchema,
  userSchema,
  verifyEmailSchema,
} from "./account.ts";
import { VALIDATION } from "./messages.ts";

function messages(result: { success: boolean; error?: { issues: { message: string }[] } }): string[] {
  return result.success ? [] : (result.error?.issues.map((i) => i.message) ?? []);
}

function fieldMessages(
  result: { success: boolean; error?: { issues: { message: string; path: PropertyKey[] }[] } },
  field: string,
): string[] {
  return (result.error?.issues ?? []).filter((i) => i.path[0] === field).map((i) => i.message);
}

const GOOD_PASSWORD = "Abcdef1!";

describe("password rules (spec section 5)", () => {
  it.each([
    ["", VALIDATION.passwordRequired],
    ["Abcde1!", VALIDATION.passwordTooShort],
    ["Abcdefghij1!Abcdefghij1!Abcdefg", VALIDATION.passwordTooLong],
    ["abcdef1!", VALIDATION.passwordUppercase],
    ["ABCDEF1!", VALIDATION.passwordLowercase],
    ["Abcdefg!", VALIDATION.passwordNumber],
    ["Abcdefg1", VALIDATION.passwordSpecial],
  ])("%j breaks exactly one rule: %s", (password, expected) => {
    expect(messages(passwordSchema.safeParse(password))).toEqual([expected]);
  });

  it.each(["@", "$", "!", "%", "*", "?", "&", "#"])("accepts %s as the special character", (special) => {
    expect(passwordSchema.safeParse(`Abcdef1${special}`).success).toBe(true);
  });

  it.each(["-", "_", " ", "^", "~"])("does not count %j as a special character", (other) => {
    expect(messages(passwordSchema.safeParse(`Abcdef1${other}`))).toEqual([VALIDATION.passwordSpecial]);
  });

  it("accepts exactly 8 and exactly 30 characters", () => {
    expect(passwordSchema.safeParse("Abcdef1!").success).toBe(true);
    expect(passwordSchema.safeParse("Abcdef1!".padEnd(30, "x")).success).toBe(true);
  });

  it("reports every broken rule in the spec's order", () => {
    expect(messages(passwordSchema.safeParse("abc"))).toEqual([
      VALIDATION.passwordTooShort,
      VALIDATION.passwordUppercase,
      VALIDATION.passwordNumber,
      VALIDATION.passwordSpecial,
    ]);
  });

  it.each([undefined, null, 12345678])("a missing or non-string password (%j) is required", (value) => {
    expect(messages(passwordSchema.safeParse(value))).toEqual([VALIDATION.passwordRequired]);
  });

  it("never trims a password", () => {
    expect(passwordSchema.parse(" Abcdef1! ")).toBe(" Abcdef1! ");
  });
});

describe("e-mail rules", () => {
  it.each([
    [undefined, VALIDATION.emailRequired],
    ["", VALIDATION.emailRequired],
    ["   ", VALIDATION.emailRequired],
    ["not-an-email", VALIDATION.emailInvalid],
    ["a@b", VALIDATION.emailInvalid],
    ["a b@example.com", VALIDATION.emailInvalid],
    [`${"a".repeat(250)}@example.com`, VALIDATION.emailInvalid],
    [`${"a b".repeat(90)}@example.com`, VALIDATION.emailInvalid],
    [42, VALIDATION.emailInvalid],
  ])("%j -> %s", (value, expected) => {
    expect(messages(emailSchema.safeParse(value))).toEqual([expected]);
  });

  it("trims the address", () => {
    expect(emailSchema.parse("  Ann@Example.COM ")).toBe("Ann@Example.COM");
  });

  it("the forgot-password and resend body is {email}", () => {
    expect(emailRequestSchema.parse({ email: "a@example.com", extra: 1 })).toEqual({
      email: "a@example.com",
    });
  });
});

describe("username rules", () => {
  it.each([
    [undefined, VALIDATION.usernameRequired],
    ["", VALIDATION.usernameRequired],
    ["ab", VALIDATION.usernameInvalid],
    ["a".repeat(31), VALIDATION.usernameInvalid],
    ["ann smith", VALIDATION.usernameInvalid],
    ["ann@example.com", VALIDATION.usernameInvalid],
    ["ännchen", VALIDATION.usernameInvalid],
  ])("%j -> %s", (value, expected) => {
    expect(messages(usernameSchema.safeParse(value))).toEqual([expected]);
  });

  it.each(["ann", "Ann.Smith", "ann_smith-2", "a".repeat(30)])("accepts %s", (value) => {
    expect(usernameSchema.safeParse(value).success).toBe(true);
  });
});

describe("register form", () => {
  const valid = {
    email: "ann@example.com",
    username: "ann",
    password: GOOD_PASSWORD,
    confirmPassword: GOOD_PASSWORD,
  };

  it("accepts a valid registration and drops unknown fields", () => {
    expect(registerSchema.parse({ ...valid, role: "admin" })).toEqual(valid);
  });

  it("asks to confirm the password when confirmPassword is empty", () => {
    const result = registerSchema.safeParse({ ...valid, confirmPassword: "" });
    expect(fieldMessages(result, "confirmPassword")).toEqual([VALIDATION.confirmPasswordRequired]);
  });

  it("says 'Passwords must match' on confirmPassword", () => {
    const result = registerSchema.safeParse({ ...valid, confirmPassword: "Abcdef1?" });
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: ["confirmPassword"], message: VALIDATION.passwordsMustMatch }),
    ]);
  });

  it("still reports the mismatch when another field is invalid", () => {
    const result = registerSchema.safeParse({ ...valid, email: "nope", confirmPassword: "other" });
    expect(fieldMessages(result, "email")).toEqual([VALIDATION.emailInvalid]);
    expect(fieldMessages(result, "confirmPassword")).toEqual([VALIDATION.passwordsMustMatch]);
  });

  // Issue 11: a refinement on an object used to run only when no field had aborted, so an empty
  // username hid the mismatch until every other field was valid.
  it.each([
    ["an empty username", { email: "not-an-email", username: "", password: "abc", confirmPassword: "abd" }],
    [
      "an invalid username",
      { email: "not-an-email", username: "a", password: "abc", confirmPassword: "abd" },
    ],
    [
      "a username that is too long",
      { email: "not-an-email", username: "x".repeat(45), password: "abc", confirmPassword: "abd" },
    ],
    ["an empty e-mail", { email: "", username: "", password: "abc", confirmPassword: "abd" }],
    [
      "an e-mail that is too long",
      { email: `${"a".repeat(250)}@x.de`, username: "", password: "abc", confirmPassword: "abd" },
    ],
    [
      "a valid password and empty other fields",
      { email: "", username: "", password: "Abcdef1!", confirmPassword: "Abcdef1?" },
    ],
  ])("reports the mismatch at once next to %s", (_name, values) => {
    const result = registerSchema.safeParse(values);
    expect(fieldMessages(result, "confirmPassword")).toEqual([VALIDATION.passwordsMustMatch]);
    expect(fieldMessages(result, "username")).toHaveLength(1);
    expect(fieldMessages(result, "email")).toHaveLength(1);
  });

  it("an empty field reports only that it is required", () => {
    const result = registerSchema.safeParse({
      email: " ",
      username: "",
      password: "",
      confirmPassword: "abd",
    });
    expect(messages(result)).toEqual([
      VALIDATION.emailRequired,
      VALIDATION.usernameRequired,
      VALIDATION.passwordRequired,
    ]);
  });

  it("reports every missing field with its own message", () => {
    expect(messages(registerSchema.safeParse({}))).toEqual([
      VALIDATION.emailRequired,
      VALIDATION.usernameRequired,
      VALIDATION.passwordRequired,
      VALIDATION.confirmPasswordRequired,
    ]);
  });
});

describe("reset-password form and call", () => {
  it("the form applies the password rules and the match rule", () => {
    const result = resetPasswordFormSchema.safeParse({ password: "short", confirmPassword: "other" });
    expect(fieldMessages(result, "password")).toContain(VALIDATION.passwordTooShort);
    expect(fieldMessages(result, "confirmPassword")).toEqual([VALIDATION.passwordsMustMatch]);
  });

  it("reports the mismatch at once, next to every broken password rule", () => {
    const result = resetPasswordFormSchema.safeParse({ password: "abc", confirmPassword: "abd" });
    expect(fieldMessages(result, "password")).toEqual([
      VALIDATION.passwordTooShort,
      VALIDATION.passwordUppercase,
      VALIDATION.passwordNumber,
      VALIDATION.passwordSpecial,
    ]);
    expect(fieldMessages(result, "confirmPassword")).toEqual([VALIDATION.passwordsMustMatch]);
  });

  it("the call needs the password rules and a token", () => {
    expect(messages(passwordResetSchema.safeParse({ password: GOOD_PASSWORD }))).toEqual([
      VALIDATION.tokenRequired,
    ]);
    expect(passwordResetSchema.safeParse({ password: GOOD_PASSWORD, token: "t" }).success).toBe(true);
    expect(messages(verifyEmailSchema.safeParse({ token: "" }))).toEqual([VALIDATION.tokenRequired]);
  });
});

describe("change-password form and call", () => {
  const OTHER = "Bcdefg2@";

  it("refuse the current password as the new one, beside the new password", () => {
    const form = changePasswordFormSchema.safeParse({
      currentPassword: GOOD_PASSWORD,
      password: GOOD_PASSWORD,
      confirmPassword: GOOD_PASSWORD,
    });
    expect(fieldMessages(form, "password")).toEqual([VALIDATION.passwordUnchanged]);
    const call = changePasswordSchema.safeParse({
      current_password: GOOD_PASSWORD,
      new_password: GOOD_PASSWORD,
    });
    expect(fieldMessages(call, "new_password")).toEqual([VALIDATION.passwordUnchanged]);
  });

  it("take a new password that differs, and say nothing more about an empty one", () => {
    expect(
      changePasswordFormSchema.safeParse({
        currentPassword: GOOD_PASSWORD,
        password: OTHER,
        confirmPassword: OTHER,
      }).success,
    ).toBe(true);
    expect(
      changePasswordSchema.safeParse({ current_password: GOOD_PASSWORD, new_password: OTHER }).success,
    ).toBe(true);
    const empty = changePasswordFormSchema.safeParse({
      currentPassword: "",
      password: "",
      confirmPassword: "",
    });
    expect(fieldMessages(empty, "password")).toEqual([VALIDATION.passwordRequired]);
  });
});

describe("login form", () => {
  it.each([
    [{ password: "x" }, [VALIDATION.usernameRequired]],
    [{ username: "ann" }, [VALIDATION.passwordRequired]],
    [{ username: "ann", password: "" }, [VALIDATION.passwordRequired]],
    [{ username: "a b", password: "x" }, [VALIDATION.usernameInvalid]],
  ])("%j -> %j", (input, expected) => {
    expect(messages(loginSchema.safeParse(input))).toEqual(expected);
  });

  it("accepts grant_type=password and only that", () => {
    expect(loginSchema.safeParse({ username: "ann", password: "x", grant_type: "password" }).success).toBe(
      true,
    );
    expect(
      loginSchema.safeParse({ username: "ann", password: "x", grant_type: "client_credentials" }).success,
    ).toBe(false);
  });

  it("does not apply the password rules at login (an old password may predate them)", () => {
    expect(loginSchema.safeParse({ username: "ann", password: "x" }).success).toBe(true);
  });
});

describe("user response", () => {
  const user = {
    id: "u1",
    username: "ann",
    email: "ann@example.com",
    role: "user",
    email_verified: true,
    credit_balance: 0,
  };

  it.each([
    ["the FREE object", FREE_SUBSCRIPTION],
    ["null", null],
    ["missing", undefined],
  ])("accepts subscription as %s", (_label, subscription) => {
    expect(userSchema.safeParse({ ...user, subscription }).success).toBe(true);
  });
});
