import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveMfaKey, resolveSigningKey } from "./dev-keys.ts";
import { createMfaSecrets } from "./mfa-secrets.ts";
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

describe("resolveMfaKey", () => {
  it("uses the configured key when there is one", () => {
    expect(resolveMfaKey("configured", dir())).toBe("configured");
  });

  it("generates a 32-byte key once into DATA_DIR (0600) that opens what it sealed after a restart", () => {
    const dataDir = dir();
    const first = resolveMfaKey(undefined, dataDir);
    expect(Buffer.from(first, "base64")).toHaveLength(32);
    expect(statSync(join(dataDir, "mfa-encryption-key")).mode & 0o777).toBe(0o600);
    const sealed = createMfaSecrets(first).seal("JBSWY3DPEHPK3PXP", "user-1");
    const again = resolveMfaKey(undefined, dataDir);
    expect(createMfaSecrets(again).open(sealed, "user-1")).toBe("JBSWY3DPEHPK3PXP");
  });

  it("refuses a damaged key file", () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, "mfa-encryption-key"), "short");
    expect(() => resolveMfaKey(undefined, dataDir)).toThrow(/32 bytes in Base64.*delete it/);
  });
});
