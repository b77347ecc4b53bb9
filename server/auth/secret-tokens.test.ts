import { describe, expect, it } from "vitest";
import { normaliseEmail } from "./email-address.ts";
import { generateSecretToken, hashSecretToken } from "./secret-tokens.ts";

describe("mailed tokens", () => {
  it("carry 256 bits, URL-safe", () => {
    const token = generateSecretToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
  });

  it("never repeat", () => {
    const seen = new Set(Array.from({ length: 1000 }, generateSecretToken));
    expect(seen.size).toBe(1000);
  });

  it("are stored as a SHA-256 hex digest, not as themselves", () => {
    const token = generateSecretToken();
    const stored = hashSecretToken(token);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(token);
    expect(hashSecretToken(token)).toBe(stored);
  });
});

describe("normaliseEmail", () => {
  it.each([
    ["  Ann.Smith@Example.COM ", "Ann.Smith@example.com"],
    ["ann@example.com", "ann@example.com"],
    ['"a@b"@EXAMPLE.org', '"a@b"@example.org'],
  ])("%j -> %j", (input, expected) => {
    expect(normaliseEmail(input)).toBe(expected);
  });
});
