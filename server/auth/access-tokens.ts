// Access tokens: JWTs with the contract's claims, signed with the current signing key (EdDSA or
// ES256) and its `kid`. Verification takes the key from the token's `kid` among the published keys
// (the current one and the retired ones still in the JWKS), allows only their algorithms (never
// `none`, never HS256 with a public key as its "secret"), checks issuer, audience and expiry
// against the injected clock, and requires every claim the server relies on.
import { createLocalJWKSet, errors, jwtVerify, SignJWT } from "jose";
import type { Clock } from "../clock.ts";
import type { SigningKeys } from "./signing-keys.ts";

export interface AccessTokenSubject {
  id: string;
  username: string;
  role: "user" | "support" | "admin";
  tokenVersion: number;
}

/**
 * How the holder proved who they are (RFC 8176 `amr` values): `pwd` a password, `otp` a one-time
 * code, `hwk` a passkey, `mfa` more than one factor.
 */
export type AuthMethod = "pwd" | "otp" | "hwk" | "mfa";

export interface Authentication {
  /** When the holder last entered a password or used a passkey (re-authentication resets it). */
  authTime: Date;
  amr: readonly AuthMethod[];
}

export interface AccessTokenClaims {
  sub: string;
  username: string;
  role: string;
  /** The user's token version when the token was issued; a password reset raises it. */
  ver: number;
  iat: number;
  exp: number;
  /** The token's own id: POST /v1/logout revokes it. */
  jti: string;
  /** Seconds since the epoch; tokens from before these claims existed read `iat` here. */
  auth_time: number;
  amr: readonly AuthMethod[];
}

export interface AccessTokenSettings {
  keys: SigningKeys;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  /** Whether a token id was signed out (auth/token-revocations.ts); checked at every verify(). */
  isRevoked?: ((jti: string) => boolean) | undefined;
}

export interface AccessTokens {
  /** The public keys tokens verify with (RFC 7517), as `GET /.well-known/jwks.json` publishes them. */
  readonly jwks: SigningKeys["jwks"];
  /** A token for `subject`; `authentication` defaults to a password entered now. */
  issue(
    subject: AccessTokenSubject,
    authentication?: Authentication,
  ): Promise<{ token: string; expiresIn: number }>;
  /** The claims of a valid token, or undefined for anything else (bad signature, expired, malformed...). */
  verify(token: string): Promise<AccessTokenClaims | undefined>;
}

/** How many verified tokens verify() remembers (about 0.5 KB each). */
export const REMEMBERED_TOKENS = 10_000;

export function createAccessTokens(
  settings: AccessTokenSettings,
  clock: Clock,
  rememberedTokens = REMEMBERED_TOKENS,
): AccessTokens {
  const { keys } = settings;
  const algorithms = [...new Set(keys.verifying.map((k) => k.alg))];
  // jose's local key set: picks the key by `kid` (and by algorithm), imports each key once.
  const keySet = createLocalJWKSet(keys.jwks);
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
  return {
    jwks: keys.jwks,
    async issue(subject, authentication) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      const authTime = authentication ? Math.floor(authentication.authTime.getTime() / 1000) : iat;
      const token = await new SignJWT({
        username: subject.username,
        role: subject.role,
        ver: subject.tokenVersion,
        auth_time: authTime,
        amr: [...(authentication?.amr ?? ["pwd"])],
      })
        .setProtectedHeader({ alg: keys.current.alg, kid: keys.current.kid, typ: "JWT" })
        .setSubject(subject.id)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + settings.ttlSeconds)
        .setJti(crypto.randomUUID())
        .sign(keys.current.privateKey);
      return { token, expiresIn: settings.ttlSeconds };
    },
    async verify(token) {
      const claims = await verifyOnce(token);
      if (claims && settings.isRevoked?.(claims.jti)) return undefined;
      return claims;
    },
  };

  async function verifyOnce(token: string): Promise<AccessTokenClaims | undefined> {
    const known = verified.get(token);
    if (known) {
      // As jose: expired when exp is at or before now, in whole seconds.
      if (known.exp > Math.floor(clock.now().getTime() / 1000)) return known;
      verified.delete(token);
      return undefined;
    }
    try {
      const { payload } = await jwtVerify(token, keySet, {
        algorithms,
        // RFC 8725 3.11: explicit typing. This API signs no other kind of JWT; checking typ keeps
        // any later kind from being taken for an access token.
        typ: "JWT",
        issuer: settings.issuer,
        audience: settings.audience,
        currentDate: clock.now(),
        requiredClaims: ["sub", "iat", "exp", "ver", "username", "role", "jti"],
      });
      const { sub, username, role, ver, iat, exp, jti } = payload;
      if (
        typeof sub !== "string" ||
        typeof username !== "string" ||
        typeof role !== "string" ||
        typeof jti !== "string"
      )
        return undefined;
      if (
        typeof ver !== "number" ||
        !Number.isInteger(ver) ||
        typeof iat !== "number" ||
        typeof exp !== "number"
      ) {
        return undefined;
      }
      const claims = Object.freeze({
        sub,
        username,
        role,
        ver,
        iat,
        exp,
        jti,
        auth_time: typeof payload.auth_time === "number" ? payload.auth_time : iat,
        amr: Object.freeze(authMethods(payload.amr)),
      });
      remember(token, claims);
      return claims;
    } catch (error) {
      if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
      throw error;
    }
  }
}

const AUTH_METHODS: readonly AuthMethod[] = ["pwd", "otp", "hwk", "mfa"];

/** Whether a token's `amr` shows two factors, or a passkey (a factor that is two in one). */
export function provesTwoFactors(amr: readonly AuthMethod[]): boolean {
  return amr.includes("mfa") || amr.includes("hwk");
}

/** The token's `amr`, keeping only the values this server issues; a token without one was a password's. */
function authMethods(value: unknown): AuthMethod[] {
  if (!Array.isArray(value)) return ["pwd"];
  return value.filter((m): m is AuthMethod => AUTH_METHODS.includes(m as AuthMethod));
}
