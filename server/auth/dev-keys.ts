// Outside production the server may run without JWT_SIGNING_KEY and MFA_ENCRYPTION_KEY: it then
// keeps generated keys in DATA_DIR (mode 0600), so a restart neither logs everybody out nor loses
// the two-factor secrets, and nobody has to make a key to try the product. Production refuses to
// start without them (server/env.ts).
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mfaKeyProblem, newMfaKey } from "./mfa-secrets.ts";
import { signingKeyProblem } from "./signing-keys.ts";

interface KeptKey {
  fileName: string;
  generate(): string;
  /** Why the file's text is not a usable key, or undefined. */
  problem(text: string): string | undefined;
}

/** The configured key, or the one kept in DATA_DIR/`fileName` (generated on first use). */
function resolveKept(configured: string | undefined, dataDir: string, kept: KeptKey): string {
  if (configured) return configured;
  const path = join(dataDir, kept.fileName);
  mkdirSync(dataDir, { recursive: true });
  const generated = kept.generate();
  try {
    // "wx": never overwrite a key another process just wrote.
    writeFileSync(path, generated, { flag: "wx", mode: 0o600 });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const existing = readFileSync(path, "utf8");
  const problem = kept.problem(existing);
  if (problem) throw new Error(`${path} ${problem}; delete it to generate a new one.`);
  return existing;
}

/** The configured signing key's PEM, or the development key's (Ed25519). */
export function resolveSigningKey(configured: string | undefined, dataDir: string): string {
  return resolveKept(configured, dataDir, {
    fileName: "jwt-signing-key.pem",
    generate: () =>
      generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    problem: (pem) => signingKeyProblem(pem, "private"),
  });
}

/**
 * The configured MFA_ENCRYPTION_KEY, or the development one. Deleting the file makes every sealed
 * TOTP secret unreadable: two-factor sign-in then needs a recovery code.
 */
export function resolveMfaKey(configured: string | undefined, dataDir: string): string {
  return resolveKept(configured, dataDir, {
    fileName: "mfa-encryption-key",
    generate: newMfaKey,
    problem: mfaKeyProblem,
  });
}
