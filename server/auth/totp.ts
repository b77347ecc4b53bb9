// Time-based one-time codes (RFC 6238) as ACCOUNT-SECURITY.md sets them: SHA-1, 6 digits, 30 s,
// a code from the step before or after now accepted too (clocks drift), and each code accepted
// once: a code matches only a step later than the last one used. The arithmetic is otpauth's.
import { Secret, TOTP } from "otpauth";
import { normaliseCode, TOTP_DIGITS } from "../../contract/totp-code.ts";

export const TOTP_PERIOD_SECONDS = 30;
/** Steps either side of now whose codes are accepted. */
export const TOTP_WINDOW = 1;

const settings = (secret: string) => ({
  algorithm: "SHA1",
  digits: TOTP_DIGITS,
  period: TOTP_PERIOD_SECONDS,
  secret: Secret.fromBase32(secret),
});

const totp = (secret: string) => new TOTP(settings(secret));

/**
 * A new shared secret, as the Base32 authenticator apps take: otpauth's default size, 20 bytes
 * (160 bits, RFC 4226's recommendation; the unit test holds it to that).
 */
export function newTotpSecret(): string {
  return new Secret().base32;
}

/** The otpauth:// URL an authenticator app reads from the QR code. */
export function otpauthUrl(secret: string, issuer: string, account: string): string {
  return new TOTP({ ...settings(secret), issuer, label: account }).toString();
}

/** The code for `at` (tests, and the stand-in authenticator of the browser journeys). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/** The time step of `at`: how many periods since the epoch. */
export function stepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The step `code` belongs to if it is accepted at `now`: it matches a step within the window and
 * that step is later than `lastUsedStep` (so a code, once used, is refused until it is outside the
 * window anyway). Undefined for anything else.
 */
export function acceptedStep(
  secret: string,
  code: string,
  now: Date,
  lastUsedStep: number | null,
): number | undefined {
  // otpauth compares the whole string: anything not six digits (letters, signs, decimals) matches no step.
  const token = normaliseCode(code);
  const delta = totp(secret).validate({ token, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return undefined;
  const step = stepAt(now) + delta;
  // Stryker disable next-line ConditionalExpression: with no step used yet the comparison alone
  // gives the same answer (a step is positive, and null compares as 0); the test is for clarity.
  if (lastUsedStep !== null && step <= lastUsedStep) return undefined;
  return step;
}
