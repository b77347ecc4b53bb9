// The spec's expiry rule (section 4): a token is expired when its `exp` is earlier than now, and
// also when it cannot be decoded. Kept framework-free so the rule has its own table test.

/**
 * The JSON payload of a JWT (its second part, base64url). No library: this runs on every page, and
 * reading one claim needs no more than the browser's atob and TextDecoder. Throws when unreadable.
 */
function jwtPayload(token: string): unknown {
  const part = token.split(".")[1];
  if (!part) throw new Error("not a JWT");
  const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

/** True when `token` has no readable numeric `exp` claim or that moment (seconds) has passed. */
export function isTokenExpired(token: string | null | undefined, nowMs: number = Date.now()): boolean {
  if (!token) return true;
  try {
    const { exp } = (jwtPayload(token) ?? {}) as { exp?: unknown };
    if (typeof exp !== "number" || !Number.isFinite(exp)) return true;
    return exp * 1000 < nowMs;
  } catch {
    return true;
  }
}
