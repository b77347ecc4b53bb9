import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "./errors.ts";
import { createRateLimiter, enforceLimits, type LimitName, type RateLimiter } from "./rate-limit.ts";

const LIMITS = {
  tokenPerMinute: 3,
  loginPairFailuresPerMinute: 3,
  registerPerMinute: 2,
  emailPerMinute: 2,
  emailIpPerMinute: 5,
  accountWritePerMinute: 4,
  serviceAuthFailuresPerMinute: 2,
  mfaFailuresPerHour: 3,
  emailRecipientPerHour: 3,
  emailRecipientPerDay: 4,
};

describe("rate limits in memory (the default)", () => {
  it("counts an IPv6 client by its /64 and an IPv4-mapped one as its IPv4, for every address counter", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    for (let i = 0; i < 3; i++)
      expect(await limiter.consume("loginFailureIp", `2001:db8:5:6::${i + 1}`)).toMatchObject({
        allowed: true,
      });
    expect((await limiter.consume("loginFailureIp", "2001:db8:5:6:ffff::9")).allowed).toBe(false);
    expect((await limiter.check("loginFailureIp", "2001:db8:5:6::abcd")).allowed).toBe(false);
    expect((await limiter.consume("loginFailureIp", "2001:db8:5:7::1")).allowed).toBe(true);
    await limiter.clear("loginFailureIp", "2001:db8:5:6::77");
    expect((await limiter.consume("loginFailureIp", "2001:db8:5:6::1")).allowed).toBe(true);

    for (const name of ["registerIp", "serviceAuthFailureIp"] as const) {
      expect((await limiter.consume(name, "192.0.2.1")).allowed).toBe(true);
      expect((await limiter.consume(name, "::ffff:192.0.2.1")).allowed).toBe(true);
      expect((await limiter.consume(name, "::ffff:c000:201")).allowed).toBe(false);
    }
    for (const name of ["emailIp", "passkeyOptionsIp"] as const) {
      for (let i = 0; i < 5; i++) await limiter.consume(name, `2001:db8:9:9::${i + 1}`);
      expect((await limiter.consume(name, "2001:db8:9:9::99")).allowed).toBe(false);
    }
    // A counter keyed by something else is not read as an address.
    expect((await limiter.consume("emailRecipientHour", "2001:db8:1:1::1")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", "2001:db8:1:1::2")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", "2001:db8:1:1::3")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", "2001:db8:1:1::4")).allowed).toBe(true);
  });

  it("counts the account's wrong second factors and a mailbox's mails by the hour and the day", async () => {
    // A one-second minute: the hour and day counters keep their own windows.
    const limiter = createRateLimiter({ limits: LIMITS, windowSeconds: 1 });
    for (const [name, points, window] of [
      ["mfaFailureAccount", 3, 3_600],
      ["emailRecipientHour", 3, 3_600],
      ["emailRecipientDay", 4, 86_400],
    ] as const) {
      for (let i = 0; i < points; i++) expect((await limiter.consume(name, "k")).allowed).toBe(true);
      const refused = await limiter.consume(name, "k");
      expect(refused).toMatchObject({ allowed: false, first: true });
      if (!refused.allowed) {
        expect(refused.retryAfterSeconds).toBeGreaterThan(window - 5);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(window);
      }
    }
    expect((await limiter.consume("loginFailurePair", "k")).allowed).toBe(true);
  });

  it("allows the configured number a minute, then refuses with the time to wait", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    for (let i = 0; i < 3; i++)
      expect(await limiter.consume("loginFailurePair", "ann")).toMatchObject({ allowed: true });
    const refused = await limiter.consume("loginFailurePair", "ann");
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) {
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
  });

  it("counts keys case-insensitively and separately per key and per counter", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    await limiter.consume("resetRequestEmail", "Ann@Example.com");
    await limiter.consume("resetRequestEmail", "ann@example.com");
    expect((await limiter.consume("resetRequestEmail", "ANN@EXAMPLE.COM")).allowed).toBe(false);
    expect((await limiter.consume("resetRequestEmail", "bob@example.com")).allowed).toBe(true);
    expect((await limiter.consume("resendVerificationEmail", "ann@example.com")).allowed).toBe(true);
  });

  it("check() tells whether a counter is exhausted without counting", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    expect(await limiter.check("serviceAuthFailureIp", "10.0.0.9")).toMatchObject({ allowed: true });
    await limiter.consume("serviceAuthFailureIp", "10.0.0.9");
    expect(await limiter.check("serviceAuthFailureIp", "10.0.0.9")).toMatchObject({ allowed: true });
    expect(await limiter.check("serviceAuthFailureIp", "10.0.0.9")).toMatchObject({ allowed: true });
    await limiter.consume("serviceAuthFailureIp", "10.0.0.9");
    const blocked = await limiter.check("serviceAuthFailureIp", "10.0.0.9");
    expect(blocked.allowed).toBe(false);
    expect(await limiter.check("serviceAuthFailureIp", "10.0.0.10")).toMatchObject({ allowed: true });
  });

  it("refund() gives a point back, clear() forgets the counter, and only the first refusal says first", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    for (let i = 0; i < 3; i++) await limiter.consume("loginFailurePair", "ann|10.0.0.1");
    const over = await limiter.consume("loginFailurePair", "ann|10.0.0.1");
    expect(over).toMatchObject({ allowed: false, first: true });
    expect(await limiter.consume("loginFailurePair", "ann|10.0.0.1")).toMatchObject({
      allowed: false,
      first: false,
    });
    await limiter.clear("loginFailurePair", "ann|10.0.0.1");
    for (let i = 0; i < 3; i++) await limiter.consume("loginFailurePair", "ann|10.0.0.1");
    await limiter.refund("loginFailurePair", "ann|10.0.0.1");
    expect((await limiter.consume("loginFailurePair", "ann|10.0.0.1")).allowed).toBe(true);
    expect((await limiter.consume("loginFailurePair", "ann|10.0.0.1")).allowed).toBe(false);
  });

  it("opens again when the window has passed", async () => {
    const limiter = createRateLimiter({ limits: LIMITS, windowSeconds: 1 });
    for (let i = 0; i < 2; i++) await limiter.consume("registerIp", "10.0.0.1");
    expect((await limiter.consume("registerIp", "10.0.0.1")).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await limiter.consume("registerIp", "10.0.0.1")).allowed).toBe(true);
  });

  it("enforceLimits answers 429 'Too many requests' with Retry-After", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    await enforceLimits(limiter, [["registerIp", "ip"]]);
    await enforceLimits(limiter, [["registerIp", "ip"]]);
    const error = await enforceLimits(limiter, [["registerIp", "ip"]]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, detail: "Too many requests, please try again later." });
    expect((error as ApiError).headers["Retry-After"]).toMatch(/^\d+$/);
  });

  it("enforceLimits answers in a call's own words when it gives them", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    for (let i = 0; i < 3; i++) await limiter.consume("emailRecipientHour", "box");
    const error = await enforceLimits(limiter, [["emailRecipientHour", "box"]], "That inbox is full.").catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 429, detail: "That inbox is full." });
    expect((error as ApiError).headers["Retry-After"]).toMatch(/^\d+$/);
  });

  it("enforceLimits gives back the points it took before the counter that refused", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    // The mailbox's day (4) used up while its hour (3) is not.
    for (let i = 0; i < 4; i++) await limiter.consume("emailRecipientDay", "box");
    const checks: [LimitName, string][] = [
      ["emailIp", "10.0.0.5"],
      ["emailRecipientHour", "box"],
      ["emailRecipientDay", "box"],
    ];
    for (let i = 0; i < 5; i++) {
      const error = await enforceLimits(limiter, checks).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 429 });
    }
    // Five refusals later the hour's 3 and the address's 5 are all still there.
    for (let i = 0; i < 3; i++)
      expect((await limiter.consume("emailRecipientHour", "box")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", "box")).allowed).toBe(false);
    for (let i = 0; i < 5; i++) expect((await limiter.consume("emailIp", "10.0.0.5")).allowed).toBe(true);
    expect((await limiter.consume("emailIp", "10.0.0.5")).allowed).toBe(false);
  });

  it("enforceLimits gives a point back only while the window it was taken from lasts", async () => {
    const refunded: string[] = [];
    const now = Date.now();
    // The first counter's window ended between its count and the refusal; the second's has not.
    const ends: Record<string, number> = { ended: now - 1, lasting: now + 60_000 };
    const limiter: RateLimiter = {
      consume: async (_name, key) =>
        key === "full"
          ? { allowed: false, retryAfterSeconds: 5 }
          : { allowed: true, windowEndsAt: ends[key] ?? 0 },
      check: async () => ({ allowed: true }),
      refund: async (_name, key) => void refunded.push(key),
      clear: async () => {},
    };
    const error = await enforceLimits(limiter, [
      ["emailIp", "ended"],
      ["emailRecipientHour", "lasting"],
      ["emailRecipientDay", "full"],
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429 });
    expect(refunded).toEqual(["lasting"]);
    // The limiter says when the window a count went into ends.
    const real = createRateLimiter({ limits: LIMITS });
    const counted = await real.consume("emailRecipientHour", "box");
    expect(counted.allowed && counted.windowEndsAt).toBeGreaterThan(now + 3_500_000);
  });

  it("enforceLimits keeps every point of a call it allows, and a refusal takes none from later counters", async () => {
    const limiter = createRateLimiter({ limits: LIMITS });
    await enforceLimits(limiter, [
      ["emailRecipientHour", "box"],
      ["emailRecipientDay", "box"],
    ]);
    for (let i = 0; i < 2; i++)
      expect((await limiter.consume("emailRecipientHour", "box")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientHour", "box")).allowed).toBe(false);
    // The hour refuses first: the day's count is not touched.
    const error = await enforceLimits(limiter, [
      ["emailRecipientHour", "box"],
      ["emailRecipientDay", "box"],
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429 });
    for (let i = 0; i < 3; i++)
      expect((await limiter.consume("emailRecipientDay", "box")).allowed).toBe(true);
    expect((await limiter.consume("emailRecipientDay", "box")).allowed).toBe(false);
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;

// Runs whenever TEST_REDIS_URL is set (.ci/run sets it); without it there is no Redis to test against.
describe.skipIf(!REDIS_URL)(
  `rate limits shared through Redis (TEST_REDIS_URL=${REDIS_URL ?? "unset: skipped"})`,
  () => {
    let redis: Redis;
    const prefix = `portal-test:${process.pid}:${Date.now()}`;

    beforeAll(async () => {
      redis = new Redis(REDIS_URL as string, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
      await redis.ping();
    });

    afterAll(async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });

    it("shares one budget between two API instances", async () => {
      const instanceA = createRateLimiter({ limits: LIMITS, redis, keyPrefix: prefix });
      const instanceB = createRateLimiter({ limits: LIMITS, redis, keyPrefix: prefix });
      expect((await instanceA.consume("loginFailurePair", "ann")).allowed).toBe(true);
      expect((await instanceB.consume("loginFailurePair", "ann")).allowed).toBe(true);
      expect((await instanceA.consume("loginFailurePair", "ann")).allowed).toBe(true);
      const refused = await instanceB.consume("loginFailurePair", "ann");
      expect(refused.allowed).toBe(false);
      if (!refused.allowed) expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    });

    it("stores digests of addresses, not the addresses", async () => {
      const limiter = createRateLimiter({ limits: LIMITS, redis, keyPrefix: prefix });
      await limiter.consume("resetRequestEmail", "secret.person@example.com");
      const keys = await redis.keys(`${prefix}:resetRequestEmail*`);
      expect(keys.length).toBe(1);
      expect(keys[0]).not.toContain("example.com");
    });

    it("falls back to per-instance memory limits when Redis is unreachable, instead of switching off", async () => {
      const dead = new Redis("redis://127.0.0.1:1", {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        lazyConnect: true,
        retryStrategy: () => null,
      });
      dead.on("error", () => {});
      const limiter = createRateLimiter({ limits: LIMITS, redis: dead, keyPrefix: prefix });
      for (let i = 0; i < 3; i++)
        expect((await limiter.consume("loginFailureIp", "10.9.9.9")).allowed).toBe(true);
      expect((await limiter.consume("loginFailureIp", "10.9.9.9")).allowed).toBe(false);
      dead.disconnect();
    });
  },
);
