// The tokens mailed in verification and reset links: 256 bits from the OS's secure generator,
// sent once in the link and stored only as a SHA-256 hash, so a database leak yields no usable link.
// (A fast hash is right here: unlike a password, the token is too random to brute-force.)
import { hash, randomBytes } from "node:crypto";

export const SECRET_TOKEN_BYTES = 32;

export function generateSecretToken(): string {
  return randomBytes(SECRET_TOKEN_BYTES).toString("base64url");
}

export function hashSecretToken(token: string): string {
  return hash("sha256", token, "hex");
}
