// Access tokens: HS256 JWTs with the contract's claims. Verification allows only HS256 (never
// `none`, never an asymmetric algorithm with our secret as its "public key"), checks issuer,
// audience and expiry against the injected clock, and requires every claim the server relies on.
import { errors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../clock.ts";

export interface AccessTokenSubject {
  id: string;
  username: string;
  role: "user" | "admin";
  tokenVersion: number;
}

export interface AccessTokenClaims {
  sub: string;
  username: string;
  role: string;
  /** The user's token version when the token was issued; a password reset raises it. */
  ver: number;
  iat: number;
  exp: number;
}

export interface AccessTokenSettings {
  secret: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface AccessTokens {
  issue(subject: AccessTokenSubject): Promise<{ token: string; expiresIn: number }>;
  /** The claims of a valid token, or undefined for anything else (bad signature, expired, malformed...). */
  verify(token: string): Promise<AccessTokenClaims | undefined>;
}

const ALGORITHM = "HS256";

/** How many verified tokens verify() remembers (about 0.5 KB each). */
export const REMEMBERED_TOKENS = 10_000;

export function createAccessTokens(
  settings: AccessTokenSettings,
  clock: Clock,
  rememberedTokens = REMEMBERED_TOKENS,
): AccessTokens {
  const secret = new TextEncoder().encode(settings.secret);
  // Tokens that passed every check below, by their exact text, until they expire (the most recently
  // verified last). A client sends the same token with every call, and checking its signature
  // through WebCrypto is a job on libuv's thread pool: the largest cost of GET /v1/users/me of its
  // own. Only a string that verified with this process's key is remembered, its expiry is checked at
  // every use, and revocation does not depend on it: the token version is read from the database on
  // every request (http/auth-guard.ts).
  const verified = new Map<string, AccessTokenClaims>();
  const remember = (token: string, claims: AccessTokenClaims) => {
    verified.set(token, claims);
    if (verified.size > rememberedTokens) {
      const oldest = verified.keys().next();
      if (!oldest.done) verified.delete(oldest.value);
    }
  };
  // Imported once: given the raw bytes, jose imports the key again for every token it signs or
  // checks, a WebCrypto job each time (half the cost of a verification; GET /v1/users/me pays it).
  let imported: Promise<CryptoKey> | undefined;
  const hmacKey = () =>
    (imported ??= crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]));
  return {
    async issue(subject) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      const token = await new SignJWT({
        username: subject.username,
        role: subject.role,
        ver: subject.tokenVersion,
      })
        .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
        .setSubject(subject.id)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + settings.ttlSeconds)
        .setJti(crypto.randomUUID())
        .sign(await hmacKey());
      return { token, expiresIn: settings.ttlSeconds };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) {
        // As jose: expired when exp is at or before now, in whole seconds.
        if (known.exp > Math.floor(clock.now().getTime() / 1000)) return known;
        verified.delete(token);
        return undefined;
      }
      try {
        const { payload } = await jwtVerify(token, await hmacKey(), {
          algorithms: [ALGORITHM],
          issuer: settings.issuer,
          audience: settings.audience,
          currentDate: clock.now(),
          requiredClaims: ["sub", "iat", "exp", "ver", "username", "role"],
        });
        const { sub, username, role, ver, iat, exp } = payload;
        if (typeof sub !== "string" || typeof username !== "string" || typeof role !== "string")
          return undefined;
        if (
          typeof ver !== "number" ||
          !Number.isInteger(ver) ||
          typeof iat !== "number" ||
          typeof exp !== "number"
        ) {
          return undefined;
        }
        const claims = Object.freeze({ sub, username, role, ver, iat, exp });
        remember(token, claims);
        return claims;
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
        throw error;
      }
    },
  };
}
