// Two-factor sign-in (ACCOUNT-SECURITY.md) over the database: setting up an authenticator,
// turning it off, recovery codes, and the sign-in step that waits for the second factor. Every
// check that uses something up (a TOTP step, a recovery code, a try of a sign-in step) is one
// conditional UPDATE or a row lock, so two requests at once cannot both spend the same thing.
import { and, count, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { appendSecurityEvent, type RequestOrigin } from "../audit/security-events.ts";
import type { MfaSecrets } from "../auth/mfa-secrets.ts";
import { looksLikeRecoveryCode, newRecoveryCodes } from "../auth/recovery-codes.ts";
import { generateSecretToken, hashSecretToken } from "../auth/secret-tokens.ts";
import { acceptedStep, newTotpSecret, otpauthUrl } from "../auth/totp.ts";
import type { Clock } from "../clock.ts";
import { mfaChallenges, recoveryCodes, totpFactors, type UserRow, users } from "../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../db/types.ts";
import {
  isStaffsLastFactor,
  reauthNeeds,
  type SignInFactors,
  signInAsksFactor,
  signInFactors,
} from "./staff-factors.ts";

export const MFA_CHALLENGE_LIFETIME_MS = 5 * 60_000;
export const MFA_CHALLENGE_TRIES = 5;

/** What answered a second-factor check. */
export type SecondFactor = "totp" | "recovery_code" | "passkey";

/** What the code step was given: a code, or the outcome of checking a passkey (accounts/passkeys.ts). */
export type SecondFactorProof = { code: string } | { passkeyVerified: boolean };

type Account = Pick<UserRow, "id" | "username">;

export interface TwoFactorDeps {
  db: Db;
  clock: Clock;
  /**
   * The clock authenticator apps make their codes by: real time. The app's clock may run ahead
   * (`npm run billing:advance`, the local provider's billing clock), and a code checked against it
   * would lock every account with two-factor sign-in out, staff's too. Default: `clock`.
   */
  codeClock?: Clock;
  secrets: MfaSecrets;
  /** The name authenticator apps list the account under (the product's). */
  issuer: string;
}

export type ChallengeResult =
  | { ok: true; userId: string; method: Exclude<SecondFactor, "recovery_code"> }
  /** How many recovery codes are left after this one: the owner's mail says so. */
  | { ok: true; userId: string; method: "recovery_code"; recoveryCodesLeft: number }
  | { ok: false; reason: "expired" }
  | { ok: false; reason: "incorrect"; triesLeft: number };

type Refusal = "not_on" | "incorrect" | "staff_last_factor" | "app_code_needed";

/**
 * The security event of a wrong code given to a signed-in call that takes one (its owner's
 * /profile/security lists it): what `login.failed` with `step: "mfa"` is at sign-in, named by the
 * call, as someone holding the owner's session tried to turn the second factor off or to get
 * recovery codes of their own. A code not checked (429 past the count of wrong codes) writes none,
 * as at sign-in.
 */
export const WRONG_CODE_EVENT = {
  disable: "mfa.disable_failed",
  renewRecoveryCodes: "mfa.recovery_codes_renew_failed",
} as const;

async function recoveryCodesLeft(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return row?.n ?? 0;
}

async function confirmedFactor(db: DbOrTx, userId: string) {
  const [factor] = await db
    .select()
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, userId), isNotNull(totpFactors.confirmedAt)));
  return factor;
}

export function createTwoFactor(deps: TwoFactorDeps) {
  const { db, clock, secrets } = deps;
  const codeClock = deps.codeClock ?? clock;

  /** Replaces the account's recovery codes with ten new ones; answers them in clear, this once. */
  async function replaceRecoveryCodes(tx: Tx, userId: string, now: Date): Promise<string[]> {
    const codes = newRecoveryCodes();
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.insert(recoveryCodes).values(
      codes.map((code) => ({
        id: crypto.randomUUID(),
        userId,
        codeDigest: secrets.recoveryCodeDigest(code),
        createdAt: now,
      })),
    );
    return codes;
  }

  /**
   * Checks a code against the account's confirmed authenticator, or its unused recovery codes, and
   * uses it up: a TOTP step is not accepted twice, a recovery code works once.
   */
  async function spendSecondFactor(tx: Tx, userId: string, code: string, now: Date) {
    if (looksLikeRecoveryCode(code)) {
      const used = await tx
        .update(recoveryCodes)
        .set({ usedAt: now })
        .where(
          and(
            eq(recoveryCodes.userId, userId),
            eq(recoveryCodes.codeDigest, secrets.recoveryCodeDigest(code)),
            isNull(recoveryCodes.usedAt),
          ),
        )
        .returning({ id: recoveryCodes.id });
      return used.length > 0 ? ("recovery_code" as const) : undefined;
    }
    const factor = await confirmedFactor(tx, userId);
    if (!factor) return undefined;
    const step = acceptedStep(
      secrets.open(factor.sealedSecret, userId),
      code,
      codeClock.now(),
      factor.lastUsedStep,
    );
    if (step === undefined) return undefined;
    const taken = await tx
      .update(totpFactors)
      .set({ lastUsedStep: step })
      .where(
        and(
          eq(totpFactors.userId, userId),
          or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step)),
        ),
      )
      .returning({ userId: totpFactors.userId });
    return taken.length > 0 ? ("totp" as const) : undefined;
  }

  const event = (
    user: Account,
    action: string,
    origin: RequestOrigin,
    details?: Record<string, unknown>,
  ) => ({
    action,
    userId: user.id,
    actorLabel: user.username,
    origin,
    ...(details ? { details } : {}),
  });

  return {
    /** The account's role and second factors (staff-factors.ts), what the calls below decide by. */
    factors(userId: string): Promise<SignInFactors> {
      return signInFactors(db, userId);
    },

    /** Whether POST /v1/token asks the account for a second factor after its password (decision 046). */
    async asksAtSignIn(userId: string): Promise<boolean> {
      return signInAsksFactor(await signInFactors(db, userId));
    },

    /** What re-authenticating takes (decisions 023, 046): `code`, `passkey` or `password`. */
    async reauthNeeds(userId: string): Promise<"code" | "passkey" | "password"> {
      return reauthNeeds(await signInFactors(db, userId));
    },

    async status(userId: string): Promise<{ totp: boolean; recoveryCodesLeft: number }> {
      const on = (await confirmedFactor(db, userId)) !== undefined;
      return { totp: on, recoveryCodesLeft: on ? await recoveryCodesLeft(db, userId) : 0 };
    },

    /**
     * A new secret to scan, replacing a setup that was never confirmed. Two-factor is not on until
     * confirm() gets a code made from it.
     */
    async begin(user: Account): Promise<{ ok: true; secret: string; otpauthUrl: string } | { ok: false }> {
      const now = clock.now();
      const secret = newTotpSecret();
      const sealedSecret = secrets.seal(secret, user.id);
      // Only a pending (unconfirmed) row is replaced: the WHERE keeps a confirmed one untouched.
      const written = await db
        .insert(totpFactors)
        .values({ userId: user.id, sealedSecret, createdAt: now })
        .onConflictDoUpdate({
          target: totpFactors.userId,
          set: { sealedSecret, createdAt: now, lastUsedStep: null },
          setWhere: isNull(totpFactors.confirmedAt),
        })
        .returning({ userId: totpFactors.userId });
      if (written.length === 0) return { ok: false };
      return { ok: true, secret, otpauthUrl: otpauthUrl(secret, deps.issuer, user.username) };
    },

    /**
     * Turns two-factor on with a code from the new authenticator; answers the recovery codes, and
     * whether signing in asked the account for a second factor before (a staff passkey): only where
     * it did not is the code just given a second factor proved (decision 046). A customer's passkey
     * is not asked for, so a customer's confirmation proves one, as an account's without a passkey.
     */
    async confirm(
      user: Account,
      code: string,
      origin: RequestOrigin,
    ): Promise<
      | { ok: true; recoveryCodes: string[]; signInAskedFactor: boolean }
      | { ok: false; reason: "not_started" | "already_on" | "incorrect" }
    > {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const [factor] = await tx
          .select()
          .from(totpFactors)
          .where(eq(totpFactors.userId, user.id))
          .for("update");
        if (!factor) return { ok: false, reason: "not_started" } as const;
        if (factor.confirmedAt) return { ok: false, reason: "already_on" } as const;
        const step = acceptedStep(secrets.open(factor.sealedSecret, user.id), code, codeClock.now(), null);
        if (step === undefined) return { ok: false, reason: "incorrect" } as const;
        // Read before the app counts (it is not confirmed yet), by the rule POST /v1/token follows.
        const signInAskedFactor = signInAsksFactor(await signInFactors(tx, user.id));
        await tx
          .update(totpFactors)
          .set({ confirmedAt: now, lastUsedStep: step })
          .where(eq(totpFactors.userId, user.id));
        const codes = await replaceRecoveryCodes(tx, user.id, now);
        await appendSecurityEvent(tx, event(user, "mfa.enabled", origin, { method: "totp" }), now);
        return { ok: true, recoveryCodes: codes, signInAskedFactor } as const;
      });
    },

    /** Turns two-factor off with a code from the authenticator or a recovery code. */
    async disable(
      user: Account,
      code: string,
      origin: RequestOrigin,
    ): Promise<{ ok: true } | { ok: false; reason: Refusal }> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (!(await confirmedFactor(tx, user.id))) return { ok: false, reason: "not_on" } as const;
        // Before the code is spent: a refused removal leaves the code for the next try.
        if (await isStaffsLastFactor(tx, user.id, { totp: true })) {
          return { ok: false, reason: "staff_last_factor" } as const;
        }
        const method = await spendSecondFactor(tx, user.id, code, now);
        if (!method) {
          await appendSecurityEvent(tx, event(user, WRONG_CODE_EVENT.disable, origin), now);
          return { ok: false, reason: "incorrect" } as const;
        }
        await tx.delete(totpFactors).where(eq(totpFactors.userId, user.id));
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
        await appendSecurityEvent(tx, event(user, "mfa.disabled", origin, { with: method }), now);
        return { ok: true } as const;
      });
    },

    /**
     * Re-authentication's second factor (POST /v1/reauth): a code from the authenticator or a
     * recovery code, used up like at sign-in. Undefined for a wrong code, or when two-factor is off.
     */
    async spendCode(
      user: Account,
      code: string,
      origin: RequestOrigin,
    ): Promise<{ method: "totp" } | { method: "recovery_code"; recoveryCodesLeft: number } | undefined> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (!(await confirmedFactor(tx, user.id))) return undefined;
        const method = await spendSecondFactor(tx, user.id, code, now);
        if (method !== "recovery_code") return method && { method };
        const left = await recoveryCodesLeft(tx, user.id);
        await appendSecurityEvent(
          tx,
          event(user, "mfa.recovery_code_used", origin, { recovery_codes_left: left, step: "reauth" }),
          now,
        );
        return { method, recoveryCodesLeft: left };
      });
    },

    /** Ten new recovery codes for a code from the authenticator; the old ones stop working. */
    async renewRecoveryCodes(
      user: Account,
      code: string,
      origin: RequestOrigin,
    ): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; reason: Refusal }> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (!(await confirmedFactor(tx, user.id))) return { ok: false, reason: "not_on" } as const;
        // Not spent: a recovery code here would be used up for nothing (and, counted as a wrong
        // code, lock its owner out of signing in: code-guessing.ts).
        if (looksLikeRecoveryCode(code)) return { ok: false, reason: "app_code_needed" } as const;
        if ((await spendSecondFactor(tx, user.id, code, now)) !== "totp") {
          await appendSecurityEvent(tx, event(user, WRONG_CODE_EVENT.renewRecoveryCodes, origin), now);
          return { ok: false, reason: "incorrect" } as const;
        }
        const codes = await replaceRecoveryCodes(tx, user.id, now);
        await appendSecurityEvent(tx, event(user, "mfa.recovery_codes_renewed", origin), now);
        return { ok: true, recoveryCodes: codes } as const;
      });
    },

    /** The sign-in step after a right password: its mfa_token, in clear this once. */
    async startChallenge(userId: string): Promise<string> {
      const now = clock.now();
      const token = generateSecretToken();
      await db.transaction(async (tx) => {
        // Ended steps have nothing left to protect; clearing them here keeps the table small.
        await tx.delete(mfaChallenges).where(lt(mfaChallenges.expiresAt, now));
        await tx.insert(mfaChallenges).values({
          id: crypto.randomUUID(),
          userId,
          tokenHash: hashSecretToken(token),
          expiresAt: new Date(now.getTime() + MFA_CHALLENGE_LIFETIME_MS),
          createdAt: now,
        });
      });
      return token;
    },

    /** Who a sign-in step is for (so that its tries count against their sign-in limits), if it is live. */
    async challengeOwner(token: string): Promise<Account | undefined> {
      const [row] = await db
        .select({ id: users.id, username: users.username })
        .from(mfaChallenges)
        .innerJoin(users, eq(users.id, mfaChallenges.userId))
        .where(and(eq(mfaChallenges.tokenHash, hashSecretToken(token)), isNull(mfaChallenges.usedAt)));
      return row;
    },

    /**
     * The second factor for `owner`'s sign-in step (challengeOwner found them by the same token):
     * used once, within 5 minutes, 5 wrong answers at most
     * (a code, or a passkey that did not verify). A wrong one is counted in the same transaction
     * that refuses it.
     */
    async completeChallenge(
      token: string,
      owner: Account,
      proof: SecondFactorProof,
      origin: RequestOrigin,
    ): Promise<ChallengeResult> {
      const now = clock.now();
      return db.transaction(async (tx): Promise<ChallengeResult> => {
        const [challenge] = await tx
          .select()
          .from(mfaChallenges)
          .where(eq(mfaChallenges.tokenHash, hashSecretToken(token)))
          .for("update");
        if (
          !challenge ||
          challenge.userId !== owner.id ||
          challenge.usedAt !== null ||
          challenge.expiresAt.getTime() <= now.getTime() ||
          challenge.failedTries >= MFA_CHALLENGE_TRIES
        ) {
          return { ok: false, reason: "expired" };
        }
        const method =
          "code" in proof
            ? await spendSecondFactor(tx, owner.id, proof.code, now)
            : proof.passkeyVerified
              ? ("passkey" as const)
              : undefined;
        if (!method) {
          const failedTries = challenge.failedTries + 1;
          await tx.update(mfaChallenges).set({ failedTries }).where(eq(mfaChallenges.id, challenge.id));
          return { ok: false, reason: "incorrect", triesLeft: MFA_CHALLENGE_TRIES - failedTries };
        }
        await tx.update(mfaChallenges).set({ usedAt: now }).where(eq(mfaChallenges.id, challenge.id));
        if (method !== "recovery_code") return { ok: true, userId: owner.id, method };
        const left = await recoveryCodesLeft(tx, owner.id);
        await appendSecurityEvent(
          tx,
          event(owner, "mfa.recovery_code_used", origin, { recovery_codes_left: left }),
          now,
        );
        return { ok: true, userId: owner.id, method, recoveryCodesLeft: left };
      });
    },
  };
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;
