// The account flows (register, log in, verify the address, reset the password), as plain
// functions over injected dependencies. The HTTP routes only translate their results.
import { and, eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { usableApiKeys } from "../api-access/api-keys.ts";
import { appendSecurityEvent, type RequestOrigin } from "../audit/security-events.ts";
import { normaliseEmail } from "../auth/email-address.ts";
import type { PasswordHasher } from "../auth/passwords.ts";
import { generateSecretToken } from "../auth/secret-tokens.ts";
import type { BackgroundTasks } from "../background.ts";
import type { Clock } from "../clock.ts";
import { passkeys, type UserRow, users } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import type { Mailer } from "../mail/mailer.ts";
import { passwordChangedMail, passwordResetMail, verificationMail } from "../mail/templates.ts";
import { endPendingEmailChanges } from "./email-change.ts";
import type { AccountHooks } from "./hooks.ts";
import { mailTime } from "./security-mails.ts";
import { consumeTokenOfLockedAccount, findUsableToken, issueUserToken, revokeTokens } from "./user-tokens.ts";
import { findUserByEmail, findUserByUsername, insertUser, isUniqueViolation, lockAccount } from "./users.ts";

export interface AccountDeps {
  db: Db;
  clock: Clock;
  passwords: PasswordHasher;
  mailer: Mailer;
  tasks: BackgroundTasks;
  hooks: AccountHooks;
  logger: Logger;
  /** PORTAL_URL without a trailing slash: mail links point there. */
  portalUrl: string;
}

export type RegisterResult = { ok: true; user: UserRow } | { ok: false; conflict: "email" | "username" };

export type LoginResult =
  | { ok: true; user: UserRow }
  /** `user`: the account whose password was wrong, if the username is one (for its security log). */
  | { ok: false; reason: "incorrect"; user?: UserRow }
  | { ok: false; reason: "unverified" | "disabled"; user: UserRow };

async function conflictOf(
  db: Db,
  email: string,
  username: string,
): Promise<"email" | "username" | undefined> {
  if (await findUserByEmail(db, email)) return "email";
  if (await findUserByUsername(db, username)) return "username";
  return undefined;
}

/**
 * Marks the address verified if it was not yet, and only then runs the hook (billing's free
 * credits): the conditional UPDATE makes this happen once per user however many links are used.
 */
async function markEmailVerified(tx: Tx, deps: AccountDeps, userId: string, now: Date): Promise<void> {
  const flipped = await tx
    .update(users)
    .set({ emailVerified: true, emailVerifiedAt: now, updatedAt: now })
    .where(and(eq(users.id, userId), eq(users.emailVerified, false)))
    .returning({ email: users.email });
  await revokeTokens(tx, userId, "email_verification", now);
  const [verified] = flipped;
  if (verified) await deps.hooks.onEmailVerified(tx, { userId, email: verified.email, at: now });
}

function sendInBackground(deps: AccountDeps, label: string, work: () => Promise<void>): void {
  deps.tasks.run(label, work);
}

export function createAccounts(deps: AccountDeps) {
  const { db, clock, passwords } = deps;

  /** The "password was changed" mail, with the API keys that keep working and the passkeys. */
  function mailPasswordChanged(user: UserRow, at: Date, origin: RequestOrigin, how: "reset" | "changed") {
    sendInBackground(deps, "password changed mail", async () => {
      const keys = await usableApiKeys(db, user.id, at);
      const signsIn = await db
        .select({ name: passkeys.name })
        .from(passkeys)
        .where(eq(passkeys.userId, user.id))
        .orderBy(passkeys.createdAt);
      await deps.mailer.send(
        passwordChangedMail({
          to: user.email,
          username: user.username,
          portalUrl: deps.portalUrl,
          at: mailTime(at),
          ip: origin.ip,
          keys,
          passkeys: signsIn,
          how,
        }),
      );
    });
  }

  return {
    async register(input: { email: string; username: string; password: string }): Promise<RegisterResult> {
      const email = normaliseEmail(input.email);
      const username = input.username.trim();
      const early = await conflictOf(db, email, username);
      if (early) return { ok: false, conflict: early };
      const passwordHash = await passwords.hash(input.password);
      const now = clock.now();
      let created: { user: UserRow; token: string };
      try {
        created = await db.transaction(async (tx) => {
          const user = await insertUser(tx, { username, email, passwordHash, now });
          const token = await issueUserToken(tx, { userId: user.id, purpose: "email_verification", now });
          return { user, token };
        });
      } catch (error) {
        // Two registrations racing for the same name or address: the unique index decides.
        if (!isUniqueViolation(error)) throw error;
        return { ok: false, conflict: (await conflictOf(db, email, username)) ?? "username" };
      }
      const { user, token } = created;
      sendInBackground(deps, "verification mail", () =>
        deps.mailer.send(
          verificationMail({ to: user.email, username: user.username, portalUrl: deps.portalUrl, token }),
        ),
      );
      deps.logger.info({ userId: user.id }, "User registered");
      return { ok: true, user };
    },

    /**
     * Checks a username and password. An unknown username costs a full argon2 verification too, and
     * "not verified" is only told to someone who knows the password.
     */
    async login(username: string, password: string): Promise<LoginResult> {
      const user = await findUserByUsername(db, username);
      if (!user) {
        await passwords.verifyDummy(password);
        return { ok: false, reason: "incorrect" };
      }
      if (!(await passwords.verify(user.passwordHash, password))) {
        return { ok: false, reason: "incorrect", user };
      }
      if (!user.emailVerified) return { ok: false, reason: "unverified", user };
      // Told only to someone who knows the password, like "not verified".
      if (user.disabledAt !== null) return { ok: false, reason: "disabled", user };
      if (passwords.needsRehash(user.passwordHash)) {
        const oldHash = user.passwordHash;
        deps.tasks.run("password rehash", async () => {
          const newHash = await passwords.hash(password);
          // Only if the password did not change meanwhile.
          await db
            .update(users)
            .set({ passwordHash: newHash })
            .where(and(eq(users.id, user.id), eq(users.passwordHash, oldHash)));
        });
      }
      return { ok: true, user };
    },

    /** A password hash nobody knows the password of: what a deleted account keeps. */
    unusablePasswordHash(): Promise<string> {
      return passwords.hash(generateSecretToken());
    },

    /** Whether `password` is the user's (re-authentication); a full argon2 verification. */
    async confirmPassword(user: Pick<UserRow, "passwordHash">, password: string): Promise<boolean> {
      return passwords.verify(user.passwordHash, password);
    },

    /** Uses a verification token; false when it is unknown, used or expired. */
    async verifyEmail(token: string): Promise<boolean> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const used = await consumeTokenOfLockedAccount(tx, "email_verification", token, now);
        if (!used) return false;
        await markEmailVerified(tx, deps, used.userId, now);
        return true;
      });
    },

    /**
     * Mails a new verification link if the address belongs to an unverified account. Runs in the
     * background: the caller answers the same way, equally fast, whatever the address is.
     */
    resendVerification(emailInput: string): void {
      const email = normaliseEmail(emailInput);
      sendInBackground(deps, "verification mail (resend)", async () => {
        const user = await findUserByEmail(db, email);
        if (!user || user.emailVerified) return;
        const token = await issueUserToken(db, {
          userId: user.id,
          purpose: "email_verification",
          now: clock.now(),
        });
        await deps.mailer.send(
          verificationMail({ to: user.email, username: user.username, portalUrl: deps.portalUrl, token }),
        );
      });
    },

    /**
     * Mails a reset link if the address belongs to an account; background, like resendVerification.
     * The link is written under the account's lock, and only if the address is still the account's:
     * a way back (email-change.ts) that commits after the lookup has moved the address back and
     * ended every link, and must not be followed by a new one to the address it undid (a review's
     * LOW 6). A way back that commits after this transaction ends the link it wrote.
     */
    requestPasswordReset(emailInput: string): void {
      const email = normaliseEmail(emailInput);
      sendInBackground(deps, "password reset mail", async () => {
        const user = await findUserByEmail(db, email);
        if (!user) return;
        const issued = await db.transaction(async (tx) => {
          const account = await lockAccount(tx, user.id);
          if (!account || account.deletedAt || account.email.toLowerCase() !== email.toLowerCase()) {
            return undefined;
          }
          const token = await issueUserToken(tx, {
            userId: account.id,
            purpose: "password_reset",
            now: clock.now(),
          });
          return { token, to: account.email, username: account.username };
        });
        if (!issued) return;
        await deps.mailer.send(
          passwordResetMail({
            to: issued.to,
            username: issued.username,
            portalUrl: deps.portalUrl,
            token: issued.token,
          }),
        );
      });
    },

    /**
     * A verification or reset link for `user`, issued in `tx` (the operator console's "send the
     * mail", with its audit entry in the same transaction), and a function that mails it: call it
     * once the transaction has committed, so no mail carries a link that was rolled back.
     */
    async issueLinkMail(
      tx: Tx,
      user: Pick<UserRow, "id" | "email" | "username">,
      purpose: "email_verification" | "password_reset",
    ): Promise<() => void> {
      const token = await issueUserToken(tx, { userId: user.id, purpose, now: clock.now() });
      const args = { to: user.email, username: user.username, portalUrl: deps.portalUrl, token };
      const mail = purpose === "email_verification" ? verificationMail(args) : passwordResetMail(args);
      return () => sendInBackground(deps, `${purpose} mail (staff)`, () => deps.mailer.send(mail));
    },

    async isResetTokenUsable(token: string): Promise<boolean> {
      return (await findUsableToken(db, "password_reset", token, clock.now())) !== undefined;
    },

    /**
     * Sets a new password with a reset token: the token and every other reset token of the user die,
     * the token version goes up (every access token issued before stops working), a pending change
     * of address ends (asked from one of them, it may be an intruder's), and the address counts as
     * verified (the link proved the user reads it).
     */
    async resetPassword(token: string, password: string, origin: RequestOrigin): Promise<boolean> {
      // Cheap check first: an invalid token must not cost an argon2 hash.
      if (!(await findUsableToken(db, "password_reset", token, clock.now()))) return false;
      const passwordHash = await passwords.hash(password);
      const now = clock.now();
      const user = await db.transaction(async (tx) => {
        const used = await consumeTokenOfLockedAccount(tx, "password_reset", token, now);
        if (!used) return undefined;
        const [changed] = await tx
          .update(users)
          .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: now })
          .where(eq(users.id, used.userId))
          .returning();
        if (!changed) return undefined;
        await revokeTokens(tx, used.userId, "password_reset", now);
        await endPendingEmailChanges(tx, used.userId);
        await markEmailVerified(tx, deps, used.userId, now);
        await appendSecurityEvent(
          tx,
          { action: "password.reset", userId: changed.id, actorLabel: changed.username, origin },
          now,
        );
        return changed;
      });
      if (!user) return false;
      deps.logger.info({ userId: user.id }, "Password reset");
      mailPasswordChanged(user, now, origin, "reset");
      return true;
    },

    /**
     * Sets a new password for a signed-in user who gave the current one (the route checked it):
     * the token version goes up (every access token ends), and unused reset links and a pending
     * change of address die (asked from one of those sessions, it may be an intruder's). Returns the
     * user as changed, for the new token of the browser that asked.
     */
    async changePassword(userId: string, password: string, origin: RequestOrigin): Promise<UserRow> {
      const passwordHash = await passwords.hash(password);
      const now = clock.now();
      const user = await db.transaction(async (tx) => {
        const [changed] = await tx
          .update(users)
          .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: now })
          .where(eq(users.id, userId))
          .returning();
        if (!changed) throw new Error(`No user ${userId}`);
        await revokeTokens(tx, userId, "password_reset", now);
        await endPendingEmailChanges(tx, userId);
        await appendSecurityEvent(
          tx,
          { action: "password.changed", userId, actorLabel: changed.username, origin },
          now,
        );
        return changed;
      });
      deps.logger.info({ userId }, "Password changed");
      mailPasswordChanged(user, now, origin, "changed");
      return user;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
