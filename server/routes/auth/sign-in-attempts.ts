// What every call that checks a secret of the account's owner does around the check (the password
// at POST /v1/token and /v1/reauth, the code at /v1/token/mfa): take the attempt's points first,
// answer 429 while the address or the (username, address) pair is over its limit, and put each
// failure in the account's security log.
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { browserLabel, isNewBrowser } from "../../accounts/known-browsers.ts";
import { type RequestOrigin, recordSecurityEvent } from "../../audit/security-events.ts";
import { admitSignIn, type SignInAttempt } from "../../auth/sign-in-throttle.ts";
import { type UserRow, users } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import { tooManyRequests } from "../../http/rate-limit.ts";
import { originOf } from "../../http/request-origin.ts";
import type { ApiDeps } from "../api-deps.ts";

/** How the log names someone who tried a username no account has (never the text they typed). */
export const UNKNOWN_USER = "unknown user";

export interface AdmittedAttempt {
  attempt: SignInAttempt;
  origin: RequestOrigin;
  now: Date;
}

/** Counts an attempt for `username` from the request's address; throws the 429 when over a limit. */
export async function admitAttempt(
  deps: Pick<ApiDeps, "db" | "clock" | "limiter" | "trustProxy">,
  c: Context<AppEnv>,
  username: string,
): Promise<AdmittedAttempt> {
  const attempt = { username, ip: clientIp(c, deps.trustProxy) };
  const origin = originOf(c, deps.trustProxy);
  const now = deps.clock.now();
  const admitted = await admitSignIn(deps.limiter, attempt);
  if (!admitted.allowed) {
    // Once a window per counter, not once per refused request: a flood must not flood the log.
    if (admitted.first) {
      await recordSecurityEvent(
        deps.db,
        { action: "login.throttled", userId: null, actorLabel: UNKNOWN_USER, origin },
        now,
      );
    }
    throw tooManyRequests(admitted);
  }
  return { attempt, origin, now };
}

/** Logs a wrong password or code (`login.failed`) for the account it was tried on, if any. */
export function recordFailedAttempt(
  deps: Pick<ApiDeps, "db">,
  admitted: AdmittedAttempt,
  user: { id: string; username: string } | undefined,
  details?: Record<string, unknown>,
): Promise<void> {
  return recordSecurityEvent(
    deps.db,
    {
      action: "login.failed",
      userId: user?.id ?? null,
      actorLabel: user?.username ?? UNKNOWN_USER,
      origin: admitted.origin,
      ...(details ? { details } : {}),
    },
    admitted.now,
  );
}

/**
 * A sign-in that succeeded: `login.succeeded` in the account's log, and a mail when it came from a
 * browser the account has not used before (accounts/known-browsers.ts).
 */
export async function recordSignIn(
  deps: Pick<ApiDeps, "db" | "securityMails">,
  admitted: AdmittedAttempt,
  user: Pick<UserRow, "id" | "username" | "email">,
  details?: Record<string, unknown>,
): Promise<void> {
  const { origin, now } = admitted;
  // Only here, when the sign-in is complete: a right password still waiting for its second
  // factor is not a login (the console's "last login" would otherwise show an attacker's try).
  await deps.db.update(users).set({ lastLoginAt: now }).where(eq(users.id, user.id));
  await recordSecurityEvent(
    deps.db,
    {
      action: "login.succeeded",
      userId: user.id,
      actorLabel: user.username,
      origin,
      ...(details ? { details } : {}),
    },
    now,
  );
  if (await isNewBrowser(deps.db, user.id, origin.userAgent, now)) {
    deps.securityMails.newBrowserSignIn(user, browserLabel(origin.userAgent), now, origin.ip);
  }
}
