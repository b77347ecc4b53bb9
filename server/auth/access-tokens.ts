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

export function createAccessTokens(settings: AccessTokenSettings, clock: Clock): AccessTokens {
  const key = new TextEncoder().encode(settings.secret);
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
        .sign(key);
      return { token, expiresIn: settings.ttlSeconds };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
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
        return { sub, username, role, ver, iat, exp };
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
        throw error;
      }
    },
  };
}
