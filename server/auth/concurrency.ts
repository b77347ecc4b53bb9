// A queue in front of work that runs on libuv's thread pool. Node has one pool for the whole
// process (4 threads unless UV_THREADPOOL_SIZE says otherwise), shared by password hashing, WebCrypto
// (every access token is signed and checked there), file reads and zlib. Twenty logins at once would
// queue twenty argon2 hashes on it, and a GET /v1/users/me arriving then waits for a free thread
// just to check its token's signature: 150 ms at p99 on the benchmark machine (decision 009).

/** Runs at most `limit` tasks at a time; the others wait their turn, first come first served. */
export function concurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number ≥ 1, not ${limit}`);
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> | undefined => {
    if (active < limit) {
      active += 1;
      return undefined;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    // The slot passes straight to the next task, so no newcomer can slip in between.
    if (next) next();
    else active -= 1;
  };
  return async (task) => {
    await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/**
 * How many password hashes may run at once: one core fewer than the machine has, so the event loop
 * always has a core of its own (with every core hashing, GET /v1/users/me's p99 during 20 logins was
 * 64 ms on two cores, with one 18 ms), and one pool thread left for everything else. At least one.
 */
export function hashingConcurrency(cores: number, poolSize: number): number {
  return Math.max(1, Math.min(cores - 1, poolSize - 1));
}

/** libuv's thread pool size in this process. */
export function threadPoolSize(env: Record<string, string | undefined> = process.env): number {
  const size = Number(env.UV_THREADPOOL_SIZE);
  return Number.isInteger(size) && size > 0 ? Math.min(size, 1024) : 4;
}
