import { describe, expect, it } from "vitest";
import { isTokenExpired, tokenRole, tokenSubject } from "./token-expiry.ts";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (payload: unknown) => `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(payload)}.signature`;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const nowSeconds = NOW / 1000;

describe("isTokenExpired", () => {
  it.each([
    ["exp an hour ahead", jwt({ exp: nowSeconds + 3600 }), false],
    ["exp exactly now", jwt({ exp: nowSeconds }), false],
    ["exp one second ago", jwt({ exp: nowSeconds - 1 }), true],
    ["exp a day ago", jwt({ exp: nowSeconds - 86_400 }), true],
    ["no exp claim", jwt({ sub: "u1" }), true],
    [
      "base64url's - and _, no padding, UTF-8 text",
      jwt({ exp: nowSeconds + 60, name: "Zoë ~~~???>>>" }),
      false,
    ],
    ["exp not a number", jwt({ exp: "tomorrow" }), true],
    ["not a JWT at all", "not-a-token", true],
    ["a payload that is not JSON", "aaa.%%%.ccc", true],
    ["a payload of JSON null", `aaa.${b64url(null)}.ccc`, true],
    ["a header part only", b64url({ alg: "HS256" }), true],
    ["an empty string", "", true],
    ["no token", null, true],
  ])("%s -> expired: %s", (_name, token, expired) => {
    expect(isTokenExpired(token, NOW)).toBe(expired);
  });
});

describe("tokenRole", () => {
  it.each([
    [jwt({ role: "support" }), "support"],
    [jwt({ role: "admin", exp: 1 }), "admin"],
    [jwt({ sub: "x" }), null],
    [jwt({ role: 7 }), null],
    ["not a token", null],
    [null, null],
  ])("%s -> %s", (value, role) => {
    expect(tokenRole(value)).toBe(role);
  });
});

describe("tokenSubject", () => {
  it.each([
    [jwt({ sub: "u1", exp: 1 }), "u1"],
    [jwt({ role: "user" }), null],
    [jwt({ sub: 7 }), null],
    ["not a token", null],
    [null, null],
  ])("%s -> %s", (value, sub) => {
    expect(tokenSubject(value)).toBe(sub);
  });
});
