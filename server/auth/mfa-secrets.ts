// What keeps two-factor secrets out of the database in plain text (ACCOUNT-SECURITY.md): TOTP
// shared secrets are sealed with AES-256-GCM (the user's id bound in as associated data, so a
// sealed secret copied to another account does not open), and recovery codes are kept as an HMAC
// digest. Both keys are derived (HKDF) from one MFA_ENCRYPTION_KEY, which lives in the
// configuration, not in the database: a stolen dump alone yields neither.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { normaliseRecoveryCode } from "./recovery-codes.ts";

/** The sealed form's version: a future key rotation writes "v2." and still opens "v1.". */
const VERSION = "v1";
const IV_BYTES = 12;
export const MFA_KEY_BYTES = 32;

export interface MfaSecrets {
  seal(secret: string, userId: string): string;
  /** The secret, or an Error when the sealed text was altered, is another user's, or another key's. */
  open(sealed: string, userId: string): string;
  recoveryCodeDigest(code: string): string;
}

const derive = (key: Buffer, purpose: string) =>
  Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), purpose, MFA_KEY_BYTES));

/** Why `base64` cannot be the key, or undefined when it is 32 bytes of Base64. */
export function mfaKeyProblem(base64: string): string | undefined {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length !== MFA_KEY_BYTES || bytes.toString("base64") !== base64.trim()) {
    return "must be 32 bytes in Base64 (openssl rand -base64 32)";
  }
  return undefined;
}

export function createMfaSecrets(base64Key: string): MfaSecrets {
  const problem = mfaKeyProblem(base64Key);
  if (problem) throw new Error(`MFA_ENCRYPTION_KEY ${problem}`);
  const key = Buffer.from(base64Key, "base64");
  const sealing = derive(key, "totp-secret");
  const digesting = derive(key, "recovery-code");
  return {
    seal(secret, userId) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", sealing, iv);
      cipher.setAAD(Buffer.from(userId));
      const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed, userId) {
      const [version, iv, body, tag] = sealed.split(".");
      if (version !== VERSION || !iv || !body || !tag) throw new Error("Not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", sealing, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(userId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    },
    recoveryCodeDigest(code) {
      return createHmac("sha256", digesting).update(normaliseRecoveryCode(code)).digest("hex");
    },
  };
}

/** A new key, as `openssl rand -base64 32` makes one (the development default's). */
export function newMfaKey(): string {
  return randomBytes(MFA_KEY_BYTES).toString("base64");
}
