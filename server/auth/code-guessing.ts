// Wrong second factors counted per account (issue 30): the per-address limits alone let someone
// with the password and 1,000 addresses find a 6-digit code in about 80 minutes. Only someone who
// gave the right password, or holds a token with recent authentication (turning two-factor off,
// new recovery codes), reaches a counted code; past the count (RATE_LIMIT_MFA_FAILURES_PER_HOUR,
// 10 by default) the account gets no new mfa_token and takes no code for the rest of the hour, and
// its owner is mailed once (at most once an hour). A stolen fresh token can so close its owner's
// code step for an hour: the price of not letting it guess the code that removes the factor.
//
// Each code attempt takes its point before the code is checked (a parallel burst is bounded as a
// sequence is); an attempt that turns out not to be a guess (a right code, a used-up mfa_token)
// gives it back.
import { DETAIL } from "../../contract/messages.ts";
import { mailTime } from "../accounts/security-mails.ts";
import { findUserById } from "../accounts/users.ts";
import type { BackgroundTasks } from "../background.ts";
import type { Db } from "../db/types.ts";
import { ApiError } from "../http/errors.ts";
import type { LimitResult, RateLimiter } from "../http/rate-limit.ts";
import { codeGuessingMail } from "../mail/code-guessing-mail.ts";
import type { Mailer } from "../mail/mailer.ts";

const LIMIT = "mfaFailureAccount";

/** Mails the owner that their codes are being guessed (once an hour at most: see alertOnce). */
export type CodeGuessingAlert = (user: { id: string }, at: Date, ip: string | null) => void;

export function createCodeGuessingAlert(deps: {
  db: Db;
  mailer: Mailer;
  tasks: BackgroundTasks;
  portalUrl: string;
}): CodeGuessingAlert {
  return (user, at, ip) => {
    deps.tasks.run("code guessing mail", async () => {
      const owner = await findUserById(deps.db, user.id);
      if (!owner) return;
      const { email: to, username } = owner;
      const mail = codeGuessingMail({ to, username, portalUrl: deps.portalUrl, at: mailTime(at), ip });
      await deps.mailer.send(mail);
    });
  };
}

function tooManyWrongCodes(result: Extract<LimitResult, { allowed: false }>): ApiError {
  return new ApiError(429, DETAIL.tooManyWrongCodes, { "Retry-After": String(result.retryAfterSeconds) });
}

export interface CodeAttempt {
  userId: string;
  at: Date;
  ip: string | null;
}

/** Mails the owner, once an hour at most however often the limit is met (its own counter of 1). */
async function alertOnce(limiter: RateLimiter, alert: CodeGuessingAlert, attempt: CodeAttempt) {
  if ((await limiter.consume("mfaGuessingMail", attempt.userId)).allowed) {
    alert({ id: attempt.userId }, attempt.at, attempt.ip);
  }
}

/** POST /v1/token: no new mfa_token while the account's wrong codes are over the limit. */
export async function refuseWhileGuessed(limiter: RateLimiter, userId: string): Promise<void> {
  const state = await limiter.check(LIMIT, userId);
  if (!state.allowed) throw tooManyWrongCodes(state);
}

/** POST /v1/token/mfa, before the code is checked: counts the attempt; 429 over the limit. */
export async function admitCode(
  limiter: RateLimiter,
  alert: CodeGuessingAlert,
  attempt: CodeAttempt,
): Promise<void> {
  const result = await limiter.consume(LIMIT, attempt.userId);
  if (result.allowed) return;
  await alertOnce(limiter, alert, attempt);
  throw tooManyWrongCodes(result);
}

/** The code was wrong: the wrong code that reaches the limit mails the owner. */
export async function codeWasWrong(
  limiter: RateLimiter,
  alert: CodeGuessingAlert,
  attempt: CodeAttempt,
): Promise<void> {
  if (!(await limiter.check(LIMIT, attempt.userId)).allowed) await alertOnce(limiter, alert, attempt);
}

/** The attempt was no guess (the right answer, or an mfa_token that no longer works). */
export function codeWasNoGuess(limiter: RateLimiter, userId: string): Promise<void> {
  return limiter.refund(LIMIT, userId);
}

/**
 * A signed-in call that takes a code of the account's own second factor (turning two-factor off,
 * new recovery codes): counted as the sign-in's code step counts it, so that a stolen token's 10
 * minutes of recent authentication cannot be spent guessing, within the signed-in write budget,
 * the code that removes the second factor. Only "incorrect" is a guess; the call writes its own
 * security event for it (accounts/two-factor.ts, WRONG_CODE_EVENT), as sign-in writes `login.failed`.
 */
export async function countedCodeCheck<T extends { ok: true } | { ok: false; reason: string }>(
  limiter: RateLimiter,
  alert: CodeGuessingAlert,
  attempt: CodeAttempt,
  check: () => Promise<T>,
): Promise<T> {
  await admitCode(limiter, alert, attempt);
  const result = await check();
  if (!result.ok && result.reason === "incorrect") await codeWasWrong(limiter, alert, attempt);
  else await codeWasNoGuess(limiter, attempt.userId);
  return result;
}
