// Reads other than the user fetch (the catalogue): one request in flight per key, the answer
// reused for 5 minutes, and failures retried with the spec's backoff. Window focus never refetches
// (nothing here listens to it).
import { CACHE_LIFETIME_MS, isRetryableStatus, MAX_RETRIES, retryDelayMs } from "./retry-policy.ts";

interface Entry {
  promise: Promise<unknown>;
  storedAt: number;
}

export interface QueryOptions {
  retries?: number;
  /** Replaces setTimeout in tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const statusOf = (error: unknown) => (error as { status?: number } | null)?.status;

/** Runs `load`, retrying retryable failures `retries` times with exponential backoff. */
export async function withRetry<T>(
  load: () => Promise<T>,
  { retries = MAX_RETRIES, sleep = defaultSleep }: QueryOptions = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= retries || !isRetryableStatus(statusOf(error))) throw error;
      await sleep(retryDelayMs(attempt));
    }
  }
}

export function createQueryCache() {
  const entries = new Map<string, Entry>();
  return {
    /** The cached answer for `key` if younger than 5 minutes, otherwise a fresh (retried) load. */
    read<T>(key: string, load: () => Promise<T>, options: QueryOptions = {}): Promise<T> {
      const now = (options.now ?? Date.now)();
      const hit = entries.get(key);
      if (hit && now - hit.storedAt < CACHE_LIFETIME_MS) return hit.promise as Promise<T>;
      const promise = withRetry(load, options);
      entries.set(key, { promise, storedAt: now });
      // A failure is not cached: the next read tries again.
      promise.catch(() => {
        if (entries.get(key)?.promise === promise) entries.delete(key);
      });
      return promise;
    },
    invalidate(key: string): void {
      entries.delete(key);
    },
  };
}

/** The page's shared cache. */
export const queryCache = createQueryCache();
