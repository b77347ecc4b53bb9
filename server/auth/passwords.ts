// Password hashing: argon2id through @node-rs/argon2 (prebuilt N-API binaries), which hashes on a
// thread pool so the event loop keeps serving other requests while a hash is computed.
import { availableParallelism } from "node:os";
import { type Algorithm, hash, parseOptions, verify } from "@node-rs/argon2";
import { concurrencyLimit, hashingConcurrency, threadPoolSize } from "./concurrency.ts";

export interface Argon2Params {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over the memory. */
  timeCost: number;
  /** Lanes. */
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet minimum for argon2id: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: Argon2Params = Object.freeze({
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
});

// Argon2id is a const enum in the package's typings (no runtime object to import): its value is 2.
const ARGON2ID = 2 as Algorithm;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
  /** True when a stored hash was made with weaker parameters than today's: rehash it at the next login. */
  needsRehash(passwordHash: string): boolean;
  /**
   * Verifies against a hash of a random password, for a login whose username does not exist:
   * the caller spends the same work as for a wrong password, so the answer's timing does not
   * tell a guesser which usernames exist. Always false.
   */
  verifyDummy(password: string): Promise<false>;
}

export function createPasswordHasher(
  params: Argon2Params = OWASP_ARGON2ID,
  /** Hashes at once; more wait their turn (see concurrency.ts). */
  concurrency = hashingConcurrency(availableParallelism(), threadPoolSize()),
): PasswordHasher {
  const options = { ...params, algorithm: ARGON2ID };
  const inTurn = concurrencyLimit(concurrency);
  let dummyHash: Promise<string> | undefined;
  const hashPassword = (password: string) => inTurn(() => hash(password, options));

  return {
    hash: hashPassword,
    async verify(passwordHash, password) {
      try {
        return await inTurn(() => verify(passwordHash, password));
      } catch {
        // A malformed stored hash must not turn into a 500 or a way in.
        return false;
      }
    },
    needsRehash(passwordHash) {
      try {
        const used = parseOptions(passwordHash);
        return (
          used.algorithm !== ARGON2ID ||
          used.memoryCost < params.memoryCost ||
          used.timeCost < params.timeCost ||
          used.parallelism !== params.parallelism
        );
      } catch {
        return true;
      }
    },
    async verifyDummy(password) {
      dummyHash ??= hashPassword(crypto.randomUUID());
      const stored = await dummyHash;
      await inTurn(() => verify(stored, password)).catch(() => false);
      return false;
    },
  };
}
