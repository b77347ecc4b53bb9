import { parseOptions } from "@node-rs/argon2";
import { describe, expect, it } from "vitest";
import { createPasswordHasher, OWASP_ARGON2ID } from "./passwords.ts";

const hasher = createPasswordHasher();

describe("password hashing", () => {
  it("uses argon2id with at least OWASP's parameters (19 MiB, 2 passes, 1 lane)", async () => {
    const stored = await hasher.hash("Abcdef1!");
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const used = parseOptions(stored);
    expect(used.memoryCost).toBeGreaterThanOrEqual(19_456);
    expect(used.timeCost).toBeGreaterThanOrEqual(2);
    expect(used.saltLen).toBeGreaterThanOrEqual(16);
  });

  it("salts every hash", async () => {
    expect(await hasher.hash("Abcdef1!")).not.toBe(await hasher.hash("Abcdef1!"));
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hasher.hash("Abcdef1!");
    expect(await hasher.verify(stored, "Abcdef1!")).toBe(true);
    expect(await hasher.verify(stored, "abcdef1!")).toBe(false);
  });

  it("refuses rather than throws on a malformed stored hash", async () => {
    expect(await hasher.verify("not-a-hash", "Abcdef1!")).toBe(false);
  });

  it("the dummy verification always fails and costs a real argon2 verification", async () => {
    await hasher.verifyDummy("warm-up");
    const started = performance.now();
    expect(await hasher.verifyDummy("Abcdef1!")).toBe(false);
    // A real argon2id verification with m=19 MiB takes milliseconds, not microseconds.
    expect(performance.now() - started).toBeGreaterThan(2);
  });

  it("asks for a rehash of hashes made with weaker parameters", async () => {
    const weak = await createPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 }).hash(
      "Abcdef1!",
    );
    expect(hasher.needsRehash(weak)).toBe(true);
    expect(hasher.needsRehash(await hasher.hash("Abcdef1!"))).toBe(false);
    expect(hasher.needsRehash("garbage")).toBe(true);
  });

  it("does not block the event loop while hashing", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all([1, 2, 3, 4].map((n) => hasher.hash(`Abcdef1!${n}`)));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it("keeps the OWASP parameters frozen", () => {
    expect(Object.isFrozen(OWASP_ARGON2ID)).toBe(true);
  });
});
