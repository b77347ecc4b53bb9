// Outside production the server may run without JWT_SECRET: it then keeps a generated secret in
// DATA_DIR/jwt-secret (mode 0600), so a restart does not log everybody out and nobody has to
// invent a secret to try the product. Production refuses to start without JWT_SECRET (server/env.ts).
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FILE_NAME = "jwt-secret";

export function resolveJwtSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const path = join(dataDir, FILE_NAME);
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  try {
    // "wx": never overwrite a secret another process just wrote.
    writeFileSync(path, `${secret}\n`, { flag: "wx", mode: 0o600 });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const existing = readFileSync(path, "utf8").trim();
  if (existing.length < 32)
    throw new Error(`${path} holds fewer than 32 characters; delete it to generate a new one.`);
  return existing;
}
