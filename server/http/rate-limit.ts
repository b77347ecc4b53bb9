// The contract's abuse limits. Counters live in this process's memory by default, or in Redis
// (REDIS_URL) so that every API instance behind a load balancer shares them. If Redis is
// unreachable the limits fall back to per-instance memory counters rather than switching off.
import { hash } from "node:crypto";
import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { DETAIL } from "../../contract/messages.ts";
import { canonicalMailbox } from "../auth/mailbox.ts";
import type { RateLimitConfig } from "../env.ts";
import { addressKey } from "./client-ip.ts";
import { ApiError } from "./errors.ts";

/** Each counter the API keeps, with the setting that sizes it (or its fixed size). */
export const LIMITS = {
  /**
   * Sign-in attempts per client address that did not succeed (ACCOUNT-SECURITY.md). Never per
   * username alone: someone hammering a username from their address must not lock its owner out.
   */
  loginFailureIp: "tokenPerMinute",
  /** ... and per (username, client address): one address guessing one account stops sooner. */
  loginFailurePair: "loginPairFailuresPerMinute",
  registerIp: "registerPerMinute",
  resetRequestEmail: "emailPerMinute",
  resendVerificationEmail: "emailPerMinute",
  emailIp: "emailIpPerMinute",
  /**
   * Passkey sign-ins started per client address: each keeps a challenge for 5 minutes, so an
   * unlimited caller could fill the table. Sized like the per-address mail limit (10 a minute):
   * a person starts a few at most.
   */
  passkeyOptionsIp: "emailIpPerMinute",
  /** Signed-in writes (checkouts, plan changes, cancellation, key creation), per user. */
  accountWrite: "accountWritePerMinute",
  /** Failed service-key authentications, per client IP: guessing stops being possible. */
  serviceAuthFailureIp: "serviceAuthFailuresPerMinute",
  /**
   * Wrong second factors at POST /v1/token/mfa, per account, an hour (10 by default). Only someone
   * with the password gets there, so this count cannot be used to lock out an owner who does not
   * share it; without it, 1,000 addresses with 5 tries each would find a 6-digit code in hours.
   */
  mfaFailureAccount: "mfaFailuresPerHour",
  /**
   * Reset and verification mails asked for one mailbox, both calls together, an hour and a day:
   * the per-minute count alone let a stranger send one mailbox about 4,000 mails a day. The e-mail
   * change link (POST /v1/users/me/email) counts here too: one account could otherwise mail any
   * mailbox 20 links a minute; so does an invitation, made or resent (POST
   * /v1/orgs/{id}/invitations, .../resend): an admin of many organisations could otherwise mail
   * any mailbox 20 an hour from each.
   */
  emailRecipientHour: "emailRecipientPerHour",
  emailRecipientDay: "emailRecipientPerDay",
  /** The mail that tells an owner their codes are being guessed: once an hour at most. */
  mfaGuessingMail: 1,
} as const satisfies Record<string, keyof RateLimitConfig | number>;

export type LimitName = keyof typeof LIMITS;

/** Counters whose window is not a minute, in seconds. */
export const LIMIT_WINDOWS: Partial<Record<LimitName, number>> = {
  mfaFailureAccount: 3_600,
  mfaGuessingMail: 3_600,
  emailRecipientHour: 3_600,
  emailRecipientDay: 86_400,
};

/**
 * Counters keyed by a client address: their key is the address's network (addressKey: an IPv6
 * client by its /64), so a client with many addresses of one network gets one count.
 */
const ADDRESS_LIMITS: ReadonlySet<LimitName> = new Set([
  "loginFailureIp",
  "registerIp",
  "emailIp",
  "passkeyOptionsIp",
  "serviceAuthFailureIp",
]);

/** The digest a counter is stored under (see keyDigest), an address counted by its network. */
function counterKey(name: LimitName, key: string): string {
  return keyDigest(ADDRESS_LIMITS.has(name) ? addressKey(key) : key);
}

export type LimitResult =
  /** `windowEndsAt` (ms since the epoch): when the window this call counted in ends (consume). */
  | { allowed: true; windowEndsAt?: number }
  /** `first`: this call is the one that went over the limit (what a log records once a window). */
  | { allowed: false; retryAfterSeconds: number; first?: boolean };

export interface RateLimiter {
  consume(name: LimitName, key: string): Promise<LimitResult>;
  /** Whether the counter is already exhausted, without counting this call. */
  check(name: LimitName, key: string): Promise<LimitResult>;
  /** Gives back one point consume() took (an attempt that turned out not to count). */
  refund(name: LimitName, key: string): Promise<void>;
  /** Forgets the counter (a sign-in that succeeded clears its pair's failures). */
  clear(name: LimitName, key: string): Promise<void>;
}

export interface RateLimiterOptions {
  limits: RateLimitConfig;
  /** A connected ioredis client to share counters through; absent: memory. */
  redis?: Redis | undefined;
  /** Namespace of the keys in Redis. */
  keyPrefix?: string;
  /** Window length in seconds of the per-minute counters (60); LIMIT_WINDOWS' counters keep theirs. */
  windowSeconds?: number;
}

// Keys hold e-mail addresses and usernames: store a digest, not the address, in Redis.
export function keyDigest(key: string): string {
  return hash("sha256", key.toLowerCase(), "base64url").slice(0, 32);
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const minute = options.windowSeconds ?? 60;
  const prefix = options.keyPrefix ?? "portal:rl";
  const limiters = new Map<LimitName, RateLimiterAbstract>();
  for (const name of Object.keys(LIMITS) as LimitName[]) {
    const sizedBy = LIMITS[name];
    const points = typeof sizedBy === "number" ? sizedBy : options.limits[sizedBy];
    const keyPrefix = `${prefix}:${name}`;
    const duration = LIMIT_WINDOWS[name] ?? minute;
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    limiters.set(
      name,
      options.redis
        ? new RateLimiterRedis({
            storeClient: options.redis,
            keyPrefix,
            points,
            duration,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory,
    );
  }
  return {
    async check(name, key) {
      const limiter = limiters.get(name) as RateLimiterAbstract;
      // Redis down: the counting (consume) falls back to memory; a failed look here lets the call on.
      const state = await limiter.get(counterKey(name, key)).catch(() => null);
      if (state && state.consumedPoints >= limiter.points) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)) };
      }
      return { allowed: true };
    },
    async refund(name, key) {
      const limiter = limiters.get(name) as RateLimiterAbstract;
      // A failed refund (Redis down) leaves the point counted: the safe side of a limit.
      await limiter.reward(counterKey(name, key), 1).catch(() => undefined);
    },
    async clear(name, key) {
      const limiter = limiters.get(name) as RateLimiterAbstract;
      await limiter.delete(counterKey(name, key)).catch(() => undefined);
    },
    async consume(name, key) {
      const limiter = limiters.get(name) as RateLimiterAbstract;
      try {
        const counted = await limiter.consume(counterKey(name, key));
        return { allowed: true, windowEndsAt: Date.now() + counted.msBeforeNext };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return {
            allowed: false,
            retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
            first: rejection.consumedPoints === limiter.points + 1,
          };
        }
        throw rejection;
      }
    },
  };
}

export function tooManyRequests(
  result: { retryAfterSeconds: number },
  detail: string = DETAIL.tooManyRequests,
): ApiError {
  return new ApiError(429, detail, { "Retry-After": String(result.retryAfterSeconds) });
}

/**
 * The counts of mails to one mailbox, an hour's and a day's (decision 024), keyed by the mailbox
 * the address delivers to: `ann+1@gmail.com` and `a.nn@gmail.com` are one person's inbox, and an
 * address typed with another suffix must not buy another hour of mails to it.
 */
export function mailboxLimits(address: string): [LimitName, string][] {
  const mailbox = canonicalMailbox(address);
  return [
    ["emailRecipientHour", mailbox],
    ["emailRecipientDay", mailbox],
  ];
}

/**
 * Consumes one point from each named counter; the first one that is exhausted answers 429, and the
 * points this call took from the counters before it are given back: a refusal costs nothing
 * (decision 024), so a mailbox's day used up does not spend its hour as well. The exhausted
 * counter's own extra point changes nothing until its window ends, when the count starts again.
 */
export async function enforceLimits(
  limiter: RateLimiter,
  checks: [LimitName, string][],
  /** The 429's words: the generic ones unless a call says what was used up (an invitation's mailbox). */
  detail: string = DETAIL.tooManyRequests,
): Promise<void> {
  const taken: { name: LimitName; key: string; windowEndsAt: number | undefined }[] = [];
  for (const [name, key] of checks) {
    const result = await limiter.consume(name, key);
    if (!result.allowed) {
      // A point is given back only to the window it was taken from: once that has ended, a refund
      // would start the next one a point short of empty, a free try (review 88, L2).
      const now = Date.now();
      const back = taken.filter((t) => t.windowEndsAt === undefined || t.windowEndsAt > now);
      await Promise.all(back.map((t) => limiter.refund(t.name, t.key)));
      throw tooManyRequests(result, detail);
    }
    taken.push({ name, key, windowEndsAt: result.windowEndsAt });
  }
}
