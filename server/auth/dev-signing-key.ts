// Outside production the server may run without JWT_SIGNING_KEY: it then keeps a generated Ed25519
// key in DATA_DIR/jwt-signing-key.pem (mode 0600), so a restart does not log everybody out and
// nobody has to make a key to try the product. Production refuses to start without
// JWT_SIGNING_KEY (server/env.ts).
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signingKeyProblem } from "./signing-keys.ts";

const FILE_NAME = "jwt-signing-key.pem";

/** The configured signing key's PEM, or the development key's (generated on first use). */
export function resolveSigningKey(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const path = join(dataDir, FILE_NAME);
  mkdirSync(dataDir, { recursive: true });
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  try {
    // "wx": never overwrite a key another process just wrote.
    writeFileSync(path, pem, { flag: "wx", mode: 0o600 });
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const existing = readFileSync(path, "utf8");
  const problem = signingKeyProblem(existing, "private");
  if (problem) throw new Error(`${path} ${problem}; delete it to generate a new one.`);
  return existing;
}
