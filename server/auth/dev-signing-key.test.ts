import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSigningKey } from "./dev-signing-key.ts";
import { loadSigningKeys } from "./signing-keys.ts";

const dir = () => mkdtempSync(join(tmpdir(), "signing-key-"));

describe("resolveSigningKey", () => {
  it("uses the configured key when there is one", () => {
    expect(resolveSigningKey("configured-pem", dir())).toBe("configured-pem");
  });

  it("generates an Ed25519 key once into DATA_DIR (0600) and reads it back after a restart", async () => {
    const dataDir = dir();
    const first = resolveSigningKey(undefined, dataDir);
    expect(first).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(statSync(join(dataDir, "jwt-signing-key.pem")).mode & 0o777).toBe(0o600);
    expect(resolveSigningKey(undefined, dataDir)).toBe(first);
    expect((await loadSigningKeys(first)).current.alg).toBe("EdDSA");
  });

  it("refuses a damaged key file rather than signing with it", () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, "jwt-signing-key.pem"), "not a key");
    expect(() => resolveSigningKey(undefined, dataDir)).toThrow(/delete it to generate a new one/);
  });
});
