// Changing the account's e-mail address (ACCOUNT-SECURITY.md): the new address gets a link and
// takes over only when it is followed (24 h), so nobody can move an account to an address they do
// not read. Once it has, the old address is told, with a link that changes it back for 7 days and
// signs every session out: the owner's way to report and undo a change they did not make.
// Either link, once followed, ends every reset and verification link mailed before, and every
// other pending change; the way back ends the other ways back too, so whoever made the change keeps
// no link into the account (issue 30).
import { and, between, desc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import { REVERT_REVIEW_DAYS, REVERT_REVIEW_LOOKBACK_HOURS } from "../../contract/email-revert.ts";
import { madeBy } from "../api-access/api-keys.ts";
import { appendSecurityEvent, type RequestOrigin } from "../audit/security-events.ts";
import { normaliseEmail } from "../auth/email-address.ts";
import { generateSecretToken, hashSecretToken } from "../auth/secret-tokens.ts";
import type { Clock } from "../clock.ts";
import {
  apiKeys,
  emailChanges,
  organizations,
  passkeys,
  totpFactors,
  type UserRow,
  users,
} from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";
import { revokeAllTokens } from "./user-tokens.ts";
import { findUserByEmail, isUniqueViolation, lockAccount } from "./users.ts";

/**
 * What a way back leaves as the password: no argon2 hash, so no password verifies against it
 * (passwords.ts answers false for a malformed hash) until a reset sets a new one.
 */
export const CLEARED_PASSWORD_HASH = "!cleared by the e-mail address's way back: set a new password by reset";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
export const EMAIL_CHANGE_LIFETIME_MS = 24 * HOUR;
export const EMAIL_REVERT_LIFETIME_MS = 7 * 24 * HOUR;

export type EmailChangeResult =
  | { ok: true; kind: "change" | "revert"; user: UserRow; previousEmail: string; revertToken?: string }
  /**
   * "unconfirmed": a way back's link followed without `revert`: nothing was done, and the link still
   * works. A way back signs every browser out and ends the password, so it acts only when the owner
   * says so on the page; a mail scanner that opens the link, or a page that lost `?back=1`, must not.
   */
  | { ok: false; reason: "invalid" | "taken" | "unconfirmed" };

async function issue(
  tx: Db | Tx,
  args: {
    userId: string;
    kind: "change" | "revert";
    email: string;
    now: Date;
    lifetimeMs: number;
    /** A change link's: the account's token version under which it was asked for. */
    tokenVersion?: number;
  },
): Promise<string> {
  const token = generateSecretToken();
  await tx.insert(emailChanges).values({
    id: crypto.randomUUID(),
    userId: args.userId,
    kind: args.kind,
    email: args.email,
    tokenHash: hashSecretToken(token),
    expiresAt: new Date(args.now.getTime() + args.lifetimeMs),
    createdAt: args.now,
    tokenVersion: args.tokenVersion ?? null,
  });
  return token;
}

/**
 * Ends the account's pending change links (not its ways back, which are the owner's), in the
 * transaction that signs every session out: signing out everywhere, a new password, a reset. A
 * change asked from a stolen session must not outlive the owner's answer to it (a review's MEDIUM
 * 2: the intruder followed it afterwards, had a reset mailed to their address, and signed in).
 * Call it once the account's row is locked or updated in `tx`, as `confirm` locks it first.
 */
export async function endPendingEmailChanges(tx: Tx, userId: string): Promise<void> {
  await tx
    .delete(emailChanges)
    .where(
      and(eq(emailChanges.userId, userId), eq(emailChanges.kind, "change"), isNull(emailChanges.usedAt)),
    );
}

/**
 * The account's change links that `confirm` would still follow at `now` (not its ways back):
 * unused, unexpired, and asked under the account's current token version (a change asked from a
 * session that has ended since is dead).
 */
function pendingChangeOf(account: Pick<UserRow, "id" | "tokenVersion">, now: Date) {
  return and(
    eq(emailChanges.userId, account.id),
    eq(emailChanges.kind, "change"),
    isNull(emailChanges.usedAt),
    gt(emailChanges.expiresAt, now),
    eq(emailChanges.tokenVersion, account.tokenVersion),
  );
}

export function createEmailChanges(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /**
     * A link for `email` (in clear, for the mail), replacing any earlier one of the account; or
     * "taken" when another account has the address; or "signedOut" when the session that asked
     * ended while it asked (a way back or a deletion committed between its check and this).
     */
    async request(
      user: Pick<UserRow, "id" | "username" | "email" | "tokenVersion">,
      newEmail: string,
      origin: RequestOrigin,
    ): Promise<
      { ok: true; token: string; email: string } | { ok: false; reason: "taken" | "same" | "signedOut" }
    > {
      const email = normaliseEmail(newEmail);
      if (email.toLowerCase() === user.email.toLowerCase()) return { ok: false, reason: "same" };
      if (await findUserByEmail(db, email)) return { ok: false, reason: "taken" };
      const now = clock.now();
      const token = await db.transaction(async (tx) => {
        // The account's lock before its links', as `confirm` takes them. Under it, the session
        // that asked must still be the account's: a way back that committed after the session was
        // checked ended every pending change and session, and must not be followed by a new link.
        const account = await lockAccount(tx, user.id);
        if (!account || account.deletedAt || account.tokenVersion !== user.tokenVersion) return undefined;
        await endPendingEmailChanges(tx, user.id);
        const issued = await issue(tx, {
          userId: user.id,
          kind: "change",
          email,
          now,
          lifetimeMs: EMAIL_CHANGE_LIFETIME_MS,
          tokenVersion: account.tokenVersion,
        });
        await appendSecurityEvent(
          tx,
          { action: "email.change_requested", userId: user.id, actorLabel: user.username, origin },
          now,
        );
        return issued;
      });
      if (token === undefined) return { ok: false, reason: "signedOut" };
      return { ok: true, token, email };
    },

    /**
     * The change waiting for its link, if any: the address it goes to and when the link expires.
     * `request` keeps one at a time; the newest wins should two ever be there.
     */
    async pending(
      user: Pick<UserRow, "id" | "tokenVersion">,
    ): Promise<{ email: string; expiresAt: Date } | undefined> {
      const [found] = await db
        .select({ email: emailChanges.email, expiresAt: emailChanges.expiresAt })
        .from(emailChanges)
        .where(pendingChangeOf(user, clock.now()))
        .orderBy(desc(emailChanges.createdAt))
        .limit(1);
      return found;
    },

    /**
     * Ends the account's pending change: its link no longer works. False when there was none
     * (followed, expired or cancelled meanwhile). The ways back stay: they are the owner's.
     */
    async cancel(user: Pick<UserRow, "id" | "username">, origin: RequestOrigin): Promise<boolean> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        // The account's lock first, as `request` and `confirm` take it: a link followed at this
        // instant either took over before (nothing left to cancel) or finds its row gone.
        const account = await lockAccount(tx, user.id);
        if (!account || account.deletedAt) return false;
        const ended = await tx
          .delete(emailChanges)
          .where(pendingChangeOf(account, now))
          .returning({ id: emailChanges.id });
        if (ended.length === 0) return false;
        await appendSecurityEvent(
          tx,
          { action: "email.change_cancelled", userId: user.id, actorLabel: user.username, origin },
          now,
        );
        return true;
      });
    },

    /**
     * Follows a link: the change (the address takes over, counts as verified, and the old address
     * gets a way back) or, with `revert`, the way back (the old address returns, and every session
     * ends).
     */
    async confirm(token: string, origin: RequestOrigin, revert = false): Promise<EmailChangeResult> {
      const now = clock.now();
      try {
        return await db.transaction(async (tx): Promise<EmailChangeResult> => {
          const usable = and(
            eq(emailChanges.tokenHash, hashSecretToken(token)),
            isNull(emailChanges.usedAt),
            gt(emailChanges.expiresAt, now),
          );
          // The account's lock first, then the link's (users.ts lockAccount): locking the link
          // first, a way back and a change link of one account followed at once each held its
          // link and waited for the other's, and PostgreSQL ended one with a deadlock.
          const [seen] = await tx.select({ userId: emailChanges.userId }).from(emailChanges).where(usable);
          if (!seen) return { ok: false, reason: "invalid" };
          const before = await lockAccount(tx, seen.userId);
          if (!before || before.deletedAt) return { ok: false, reason: "invalid" };
          // Read again under the account's lock: a link followed meanwhile is used or deleted.
          const [found] = await tx
            .select()
            .from(emailChanges)
            .where(and(usable, eq(emailChanges.userId, before.id)))
            .for("update");
          if (!found) return { ok: false, reason: "invalid" };
          // `revert` must say what the link is: a way back without it asks first, and a change
          // link sent as a way back (a tampered page) does nothing rather than the opposite.
          if (found.kind === "revert" && !revert) return { ok: false, reason: "unconfirmed" };
          if (found.kind === "change" && revert) return { ok: false, reason: "invalid" };
          // A change asked from a session that has ended since (sign-out everywhere, a new password,
          // a reset: each raises the token version) is dead, whatever path raised it; those paths
          // also delete the link. A way back carries no version: it is the owner's, and outlives them.
          if (found.kind === "change" && found.tokenVersion !== before.tokenVersion) {
            return { ok: false, reason: "invalid" };
          }
          // Under the row's lock: of two tabs following the link at once, the second finds it used.
          const [link] = await tx
            .update(emailChanges)
            .set({ usedAt: now })
            .where(and(eq(emailChanges.id, found.id), usable))
            .returning();
          if (!link) return { ok: false, reason: "invalid" };
          const [user] = await tx
            .update(users)
            .set({
              email: link.email,
              emailVerified: true,
              emailVerifiedAt: before.emailVerifiedAt ?? now,
              updatedAt: now,
              // The way back ends every session: whoever changed the address is signed out. It also
              // ends the password: whoever moved the address may know it, or have set it through
              // a reset mailed to their address meanwhile. A reset link to the address that came
              // back is then the only way in, and it is the owner's (the page sends them there).
              ...(link.kind === "revert"
                ? { tokenVersion: sql`${users.tokenVersion} + 1`, passwordHash: CLEARED_PASSWORD_HASH }
                : {}),
            })
            .where(eq(users.id, before.id))
            .returning();
          if (!user) return { ok: false, reason: "invalid" };
          await revokeAllTokens(tx, user.id, now);
          // A change keeps the ways back mailed earlier: they are the owner's (an address changed
          // twice must still be able to come back to the first). A way back ends every pending
          // change and the ways back made after its own, never an older one: after A → B → C,
          // whoever holds B must not be able to follow B's way back and so destroy the way back
          // to A, the owner's last way in.
          await tx
            .delete(emailChanges)
            .where(
              and(
                eq(emailChanges.userId, user.id),
                isNull(emailChanges.usedAt),
                link.kind === "change"
                  ? eq(emailChanges.kind, "change")
                  : or(eq(emailChanges.kind, "change"), gt(emailChanges.createdAt, link.createdAt)),
              ),
            );
          const revertToken =
            link.kind === "change"
              ? await issue(tx, {
                  userId: user.id,
                  kind: "revert",
                  email: before.email,
                  now,
                  lifetimeMs: EMAIL_REVERT_LIFETIME_MS,
                })
              : undefined;
          await appendSecurityEvent(
            tx,
            {
              action: link.kind === "change" ? "email.changed" : "email.change_reverted",
              userId: user.id,
              actorLabel: user.username,
              origin,
            },
            now,
          );
          return {
            ok: true,
            kind: link.kind,
            user,
            previousEmail: before.email,
            ...(revertToken ? { revertToken } : {}),
          };
        });
      } catch (error) {
        // Someone registered the address between the request and the link: the unique index says so.
        if (isUniqueViolation(error)) return { ok: false, reason: "taken" };
        throw error;
      }
    },

    /**
     * After a way back (within REVERT_REVIEW_DAYS): what was added to the account from a day
     * before the change was asked for until the old address changed it back, and is still there.
     * Whoever changed the address may have added a passkey, an authenticator or an API key on the
     * way, and the revert removes none of them by itself: the owner decides (decision 023).
     */
    async revertReview(userId: string) {
      const now = clock.now();
      const [revert] = await db
        .select()
        .from(emailChanges)
        .where(
          and(
            eq(emailChanges.userId, userId),
            eq(emailChanges.kind, "revert"),
            isNotNull(emailChanges.usedAt),
            gt(emailChanges.usedAt, new Date(now.getTime() - REVERT_REVIEW_DAYS * DAY)),
          ),
        )
        .orderBy(desc(emailChanges.usedAt))
        .limit(1);
      if (!revert?.usedAt) return undefined;
      // The way back was issued in the transaction that used the change link: same instant.
      const [change] = await db
        .select({ createdAt: emailChanges.createdAt })
        .from(emailChanges)
        .where(
          and(
            eq(emailChanges.userId, userId),
            eq(emailChanges.kind, "change"),
            eq(emailChanges.usedAt, revert.createdAt),
          ),
        );
      const changedAt = change?.createdAt ?? revert.createdAt;
      const from = new Date(changedAt.getTime() - REVERT_REVIEW_LOOKBACK_HOURS * HOUR);
      const to = revert.usedAt;
      const [addedPasskeys, [factor], keys] = await Promise.all([
        db
          .select({ id: passkeys.id, name: passkeys.name, createdAt: passkeys.createdAt })
          .from(passkeys)
          .where(and(eq(passkeys.userId, userId), between(passkeys.createdAt, from, to)))
          .orderBy(passkeys.createdAt),
        db
          .select({ confirmedAt: totpFactors.confirmedAt })
          .from(totpFactors)
          .where(and(eq(totpFactors.userId, userId), between(totpFactors.confirmedAt, from, to))),
        // The keys the account made in every organisation, not only its personal one: a key the
        // intruder made in a team spends the team's credits (a review's MEDIUM 4). Each with its
        // organisation, where it is revoked (its id is the X-Organization to send; no name: personal).
        db
          .select({
            id: apiKeys.id,
            name: apiKeys.name,
            prefix: apiKeys.prefix,
            createdAt: apiKeys.createdAt,
            orgId: organizations.id,
            orgName: organizations.name,
          })
          .from(apiKeys)
          .innerJoin(organizations, eq(organizations.id, apiKeys.userId))
          .where(and(madeBy(userId), isNull(apiKeys.revokedAt), between(apiKeys.createdAt, from, to)))
          .orderBy(apiKeys.createdAt, apiKeys.id),
      ]);
      if (addedPasskeys.length === 0 && !factor?.confirmedAt && keys.length === 0) return undefined;
      return {
        since: from,
        changedAt,
        revertedAt: to,
        passkeys: addedPasskeys,
        twoFactorOnAt: factor?.confirmedAt ?? null,
        apiKeys: keys,
      };
    },
  };
}
