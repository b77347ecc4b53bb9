import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveJwtSecret } from "./dev-jwt-secret.ts";

describe("development JWT secret", () => {
  it("uses the configured secret when there is one, and writes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "jwt-"));
    expect(resolveJwtSecret("c".repeat(32), dir)).toBe("c".repeat(32));
    expect(() => statSync(join(dir, "jwt-secret"))).toThrow();
  });

  it("generates a secret once, private to the owner, and reuses it after a restart", () => {
    const dir = mkdtempSync(join(tmpdir(), "jwt-"));
    const first = resolveJwtSecret(undefined, dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, "jwt-secret")).mode & 0o777).toBe(0o600);
    expect(resolveJwtSecret(undefined, dir)).toBe(first);
  });

  it("refuses a file that holds a weak secret", () => {
    const dir = mkdtempSync(join(tmpdir(), "jwt-"));
    writeFileSync(join(dir, "jwt-secret"), "short");
    expect(() => resolveJwtSecret(undefined, dir)).toThrow(/fewer than 32/);
  });
});
