// An authenticator app's code as ACCOUNT-SECURITY.md sets it: six digits, typed with the spaces or
// the dash apps show ("123 456"). One reading for both sides: the server checks the code
// (server/auth/totp.ts), the portal its shape before sending it.

export const TOTP_DIGITS = 6;

/** What a person typed, without the spaces and dashes apps show in the middle ("123 456"). */
export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, "");
}

const APP_CODE = new RegExp(`^\\d{${TOTP_DIGITS}}$`);

/** Whether `typed` reads as an app's code at all (not whether it is the right one). */
export function isAppCodeShaped(typed: string): boolean {
  return APP_CODE.test(normaliseCode(typed));
}
