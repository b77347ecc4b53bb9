import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import {
  API_DETAIL,
  accountActionErrorMessage,
  fieldErrorsFrom422,
  isEmailNotVerified,
  isInvalidToken,
  loginErrorMessage,
  registerErrorField,
  registerErrorMessage,
} from "./error-messages.ts";
import { ERROR_TEXT } from "./ui-text.ts";

const NO_ANSWER = undefined;

describe("loginErrorMessage (spec section 8, login)", () => {
  it.each([
    [
      401,
      DETAIL.couldNotValidateCredentials,
      "You are not authorized. Please log in as an admin or super admin!",
    ],
    [400, DETAIL.incorrectCredentials, "Login failed. Please check your credentials!"],
    [403, DETAIL.emailNotVerified, "Login failed. Please check your credentials!"],
    [
      422,
      [{ loc: ["body", "username"], msg: "Invalid username", type: "x" }],
      "Login failed. Please check your credentials!",
    ],
    [500, DETAIL.internalError, "Login failed. Please check your credentials!"],
    // Not in the spec's table: the API's own words, so the user waits instead of retyping.
    [429, DETAIL.tooManyRequests, "Too many requests, please try again later."],
    // OPERATIONS.md: an account staff disabled is told so (only after the right password).
    [403, DETAIL.accountDisabled, "Account disabled. Contact support."],
    [NO_ANSWER, undefined, "Login failed"],
  ])("status %s, detail %j -> %s", (status, detail, message) => {
    expect(loginErrorMessage({ status, detail })).toBe(message);
  });

  it("spots an unverified e-mail address, and only that", () => {
    expect(isEmailNotVerified({ status: 403, detail: DETAIL.emailNotVerified })).toBe(true);
    expect(isEmailNotVerified({ status: 400, detail: DETAIL.incorrectCredentials })).toBe(false);
    expect(isEmailNotVerified({ status: 403, detail: DETAIL.notEnoughPermissions })).toBe(false);
  });
});

describe("registerErrorMessage (spec section 8, register)", () => {
  it.each([
    [401, DETAIL.couldNotValidateCredentials, "You are not authorized. Please log in as an admin!"],
    [400, DETAIL.emailExists, "Email already exists!"],
    [400, DETAIL.usernameExists, "Username already exists!"],
    [400, `Sorry: ${DETAIL.emailExists}`, "Email already exists!"],
    [400, "Something else", "Registration failed. Please check your details!"],
    [400, undefined, "Registration failed. Please check your details!"],
    [
      422,
      [{ loc: ["body", "email"], msg: "Please enter a valid email address", type: "x" }],
      "Register failed. Please try again!",
    ],
    [500, DETAIL.internalError, "Register failed. Please try again!"],
    [429, DETAIL.tooManyRequests, "Too many requests, please try again later."],
    [NO_ANSWER, undefined, "Network error. Please try again!"],
  ])("status %s, detail %j -> %s", (status, detail, message) => {
    expect(registerErrorMessage({ status, detail })).toBe(message);
  });

  it.each([
    [400, DETAIL.emailExists, "email"],
    [400, DETAIL.usernameExists, "username"],
    [400, "Something else", null],
    [409, DETAIL.emailExists, null],
  ])("status %s, detail %j belongs to field %s", (status, detail, field) => {
    expect(registerErrorField({ status, detail })).toBe(field);
  });
});

describe("fieldErrorsFrom422", () => {
  it("keeps the first message per field and ignores whole-body items", () => {
    const detail = [
      { loc: ["body", "password"], msg: "Password must contain at least one number", type: "x" },
      { loc: ["body", "password"], msg: "second", type: "x" },
      { loc: ["body", "email"], msg: "Please enter a valid email address", type: "x" },
      { loc: ["body"], msg: "Request body must be valid JSON", type: "x" },
    ];
    expect(fieldErrorsFrom422({ status: 422, detail })).toEqual({
      password: "Password must contain at least one number",
      email: "Please enter a valid email address",
    });
  });

  it("reads nothing from other statuses or shapes", () => {
    expect(fieldErrorsFrom422({ status: 400, detail: [] })).toEqual({});
    expect(fieldErrorsFrom422({ status: 422, detail: "oops" })).toEqual({});
  });
});

describe("accountActionErrorMessage (cancel, resend, reset, forgot)", () => {
  it.each([
    [400, "Oops something went wrong, please try again or contact support"],
    [422, "Oops something went wrong, please try again or contact support"],
    [500, "Oops something went wrong, please try again or contact support"],
    [NO_ANSWER, "Oops something went wrong, please try again or contact support"],
    [429, "Too many requests, please try again later."],
  ])("status %s -> %s", (status, message) => {
    expect(accountActionErrorMessage({ status, detail: undefined })).toBe(message);
  });
});

describe("the API details the mapping looks for", () => {
  it("are the contract's own strings", () => {
    for (const [key, value] of Object.entries(API_DETAIL)) {
      expect(DETAIL[key as keyof typeof API_DETAIL]).toBe(value);
    }
  });
});

describe("the catalogue's fixed messages", () => {
  it("words checkout and invalid-token failures as the spec does", () => {
    expect(ERROR_TEXT.checkoutFailed).toBe("Oops something went wrong! Try again or contact support.");
    expect(ERROR_TEXT.tokenInvalid).toBe("Token is invalid or expired.");
    expect(isInvalidToken({ status: 400, detail: DETAIL.tokenInvalidOrExpired })).toBe(true);
    expect(isInvalidToken({ status: 422, detail: [] })).toBe(false);
  });
});
