import { describe, expect, it } from "vitest";
import { createMfaSecrets, mfaKeyProblem, newMfaKey } from "./mfa-secrets.ts";
import { looksLikeRecoveryCode, newRecoveryCodes, normaliseRecoveryCode } from "./recovery-codes.ts";

const SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

describe("MFA secrets", () => {
  const key = newMfaKey();
  const secrets = createMfaSecrets(key);

  it("seals a TOTP secret so that neither it nor its Base32 appears, and opens it for its user", () => {
    const sealed = secrets.seal(SECRET, "user-1");
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(Buffer.from(SECRET).toString("base64url"));
    expect(secrets.open(sealed, "user-1")).toBe(SECRET);
    // A fresh IV each time: two seals of one secret differ.
    expect(secrets.seal(SECRET, "user-1")).not.toBe(sealed);
  });

  it("refuses another user's sealed secret, an altered one, and another key's", () => {
    const sealed = secrets.seal(SECRET, "user-1");
    expect(() => secrets.open(sealed, "user-2")).toThrow();
    const parts = sealed.split(".");
    const body = Buffer.from(parts[2] ?? "", "base64url");
    body[0] = (body[0] ?? 0) ^ 1;
    expect(() =>
      secrets.open([parts[0], parts[1], body.toString("base64url"), parts[3]].join("."), "user-1"),
    ).toThrow();
    expect(() => createMfaSecrets(newMfaKey()).open(sealed, "user-1")).toThrow();
    expect(() => secrets.open("v2.a.b.c", "user-1")).toThrow(/Not a sealed secret/);
    expect(() => secrets.open("v1.a.b", "user-1")).toThrow(/Not a sealed secret/);
  });

  it("digests a recovery code the same way however it is typed, and differently under another key", () => {
    const digest = secrets.recoveryCodeDigest("abcde-fghjk");
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets.recoveryCodeDigest(" ABCDE FGHJK ")).toBe(digest);
    expect(secrets.recoveryCodeDigest("abcde-fghjm")).not.toBe(digest);
    expect(createMfaSecrets(newMfaKey()).recoveryCodeDigest("abcde-fghjk")).not.toBe(digest);
  });

  it("takes only a 32-byte Base64 key", () => {
    expect(mfaKeyProblem(key)).toBeUndefined();
    expect(mfaKeyProblem(Buffer.alloc(16).toString("base64"))).toMatch(/32 bytes/);
    expect(mfaKeyProblem("not base64 at all!")).toMatch(/32 bytes/);
    expect(() => createMfaSecrets("short")).toThrow(/MFA_ENCRYPTION_KEY must be 32 bytes/);
  });
});

describe("recovery codes", () => {
  it("are ten different codes of ten characters without look-alikes, as abcde-fghjk", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
      expect(looksLikeRecoveryCode(code)).toBe(true);
    }
  });

  it("are recognised however they are typed, and a TOTP code or a typo is not one", () => {
    expect(normaliseRecoveryCode(" AbCdE-fGhJk ")).toBe("abcdefghjk");
    expect(looksLikeRecoveryCode("ABCDE FGHJK")).toBe(true);
    expect(looksLikeRecoveryCode("123456")).toBe(false);
    expect(looksLikeRecoveryCode("abcde-fghj")).toBe(false);
    expect(looksLikeRecoveryCode("abcde-fghjkm")).toBe(false);
    expect(looksLikeRecoveryCode("abcde-fghj1")).toBe(false);
    expect(looksLikeRecoveryCode("abcde-fghjo")).toBe(false);
  });
});
