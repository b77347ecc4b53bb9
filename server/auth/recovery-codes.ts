// Recovery codes: ten single-use codes shown once when two-factor sign-in is turned on, for the day
// the phone is lost. Ten characters from an alphabet without look-alikes (no 0/o, 1/l/i), written
// as "abcde-fghjk": about 50 bits each, so a guess online is hopeless (five tries per sign-in step),
// and stored only as a keyed digest (auth/mfa-secrets.ts), so the database alone gives none away.
import { randomInt } from "node:crypto";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const LENGTH = 10;

export function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, LENGTH / 2)}-${code.slice(LENGTH / 2)}`;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/** What a person typed, as the digest is taken of: lower case, without spaces and dashes. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

/** Whether `code` could be a recovery code at all (saves a lookup for a TOTP code or a typo). */
export function looksLikeRecoveryCode(code: string): boolean {
  const bare = normaliseRecoveryCode(code);
  return bare.length === LENGTH && [...bare].every((ch) => ALPHABET.includes(ch));
}
