// The Redis connection that shares rate-limit counters between API instances (REDIS_URL).
import { Redis } from "ioredis";
import type { Logger } from "pino";

export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    // Fail fast instead of queueing: the rate limiter then uses its in-memory fallback.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
  });
  let lastError = "";
  redis.on("error", (error: Error) => {
    // ioredis retries forever and reports every attempt: log each distinct problem once.
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn({ err: error }, "Redis unavailable: rate limits fall back to this instance's memory");
  });
  redis.on("ready", () => {
    if (lastError) logger.info("Redis reconnected: rate limits are shared again");
    lastError = "";
  });
  return redis;
}
