// The spec's expiry rule (section 4): a token is expired when its `exp` is earlier than now, and
// also when it cannot be decoded. jwt-decode reads the payload (it verifies nothing: the server
// does); the rule itself is kept framework-free so it has its own table test.
import { jwtDecode } from "jwt-decode";

/** True when `token` has no readable numeric `exp` claim or that moment (seconds) has passed. */
export function isTokenExpired(token: string | null | undefined, nowMs: number = Date.now()): boolean {
  if (!token) return true;
  try {
    const { exp } = jwtDecode(token);
    if (typeof exp !== "number" || !Number.isFinite(exp)) return true;
    return exp * 1000 < nowMs;
  } catch {
    return true;
  }
}

/** When `token` expires (its `exp` claim), or null when it has no readable one. */
export function tokenExpiresAt(token: string): Date | null {
  try {
    const { exp } = jwtDecode(token);
    return typeof exp === "number" && Number.isFinite(exp) ? new Date(exp * 1000) : null;
  } catch {
    return null;
  }
}

/**
 * The `role` claim of `token`, or null. Only a hint for what to fetch early (the console's pages ask
 * for their data before the account is loaded): the server reads the role from the database.
 */
export function tokenRole(token: string | null | undefined): string | null {
  if (!token) return null;
  try {
    const { role } = jwtDecode<{ role?: unknown }>(token);
    return typeof role === "string" ? role : null;
  } catch {
    return null;
  }
}

/**
 * Whether `token`'s `amr` shows two factors or a passkey: what the console needs of staff (the
 * server checks the same on every /v1/admin call; this only picks what the page shows).
 */
export function tokenProvesTwoFactors(token: string | null | undefined): boolean {
  if (!token) return false;
  try {
    const { amr } = jwtDecode<{ amr?: unknown }>(token);
    return Array.isArray(amr) && (amr.includes("mfa") || amr.includes("hwk"));
  } catch {
    return false;
  }
}

/** The `sub` claim of `token` (the user's id), or null: tells whether a new sign-in is another user. */
export function tokenSubject(token: string | null | undefined): string | null {
  if (!token) return null;
  try {
    const { sub } = jwtDecode(token);
    return typeof sub === "string" ? sub : null;
  } catch {
    return null;
  }
}
