// Deleting an account (ACCOUNT-SECURITY.md, GDPR art. 17): what is erased, what is pseudonymised and
// what stays. The invoices, credit notes and payments stay as issued for their retention period
// (10 years, § 147 AO; the invoice keeps its own snapshot of the buyer), and so do the ledger and
// the charges, which they explain. The user row stays for them to point at, with nothing personal
// left: the username and address become the row's id, so both are free to register again.
import { and, eq, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { appendSecurityEvent, type RequestOrigin } from "../audit/security-events.ts";
import { endLeases } from "../billing/credit-leases.ts";
import {
  apiKeys,
  billingCustomers,
  billingMails,
  emailChanges,
  knownBrowsers,
  mfaChallenges,
  organizationInvitations,
  organizations,
  passkeys,
  recoveryCodes,
  totpFactors,
  users,
  userTokens,
  vatIdChecks,
  webauthnChallenges,
} from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";
import { addressedWhileHeld, type HeldAddress, readHeldAddresses } from "./held-addresses.ts";
import { lockAccount } from "./users.ts";

/** The name a deleted account is listed under (staff see it in the console and the audit log). */
export const deletedName = (userId: string) => `deleted-${userId}`;

/**
 * The address a deleted account keeps, unique like every address: one no account can otherwise
 * have, so the erasure can never find it taken. The `~` is allowed in an address (RFC 5322) but
 * not by the contract's e-mail schema, and `.invalid` is refused at registration, an address change
 * and an invitation (auth/mailbox.ts). The form before this one, `<id>@deleted.invalid`, could be
 * registered by anyone who knew the id, and the unique index then refused every deletion of that
 * account; accounts deleted before keep it.
 */
export const deletedEmail = (userId: string) => `deleted~${userId}@deleted.invalid`;

/**
 * Erases the account in `tx` (call it last in the transaction that also ends the subscription):
 * keys revoked, every token ended, second factors and mailed links gone, billing details cleared,
 * the user row pseudonymised with a password nobody knows.
 */
export async function eraseAccount(
  tx: Tx,
  args: {
    userId: string;
    unusablePasswordHash: string;
    now: Date;
    origin: RequestOrigin;
    /** Told when the account's address history is incomplete (held-addresses.ts). */
    logger: Pick<Logger, "warn">;
  },
): Promise<void> {
  const { userId, now } = args;
  // The account's lock before its mailed links', as email-change.ts takes them: a link followed
  // during the erasure waits for it, then finds itself deleted, rather than deadlocking with it.
  const account = await lockAccount(tx, userId);
  // Every address the account had, read before its links go: the mails and invitations written to
  // an earlier one are the person's too (decision 021, addendum "Every address the account had").
  const held = account ? await readHeldAddresses(tx, account, args.logger) : [];
  // No lease goes on charging the personal organisation (its leases as a member of teams ended as
  // it left them, orgs.ts endMembership).
  await endLeases(tx, { orgId: userId }, "organization_changed");
  // The personal organisation's keys; those made in team organisations went as the account left
  // them (orgs/org-deletion.ts), where the shared keys it made keep working (ORGANISATIONS.md).
  await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  await tx.delete(totpFactors).where(eq(totpFactors.userId, userId));
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await tx.delete(mfaChallenges).where(eq(mfaChallenges.userId, userId));
  await tx.delete(passkeys).where(eq(passkeys.userId, userId));
  await tx.delete(webauthnChallenges).where(eq(webauthnChallenges.userId, userId));
  // Pending and past address changes hold addresses; the browsers seen are the owner's too.
  await tx.delete(emailChanges).where(eq(emailChanges.userId, userId));
  await tx.delete(knownBrowsers).where(eq(knownBrowsers.userId, userId));
  await tx.delete(userTokens).where(eq(userTokens.userId, userId));
  const erased = await tx
    .update(billingCustomers)
    .set({ name: null, vatId: null, email: null, address: null, detailsUpdatedAt: now })
    .where(eq(billingCustomers.userId, userId))
    .returning({ customerId: billingCustomers.customerId });
  // The checks of the VAT IDs the person gave go with them.
  for (const { customerId } of erased)
    await tx.delete(vatIdChecks).where(eq(vatIdChecks.customerId, customerId));
  await eraseMailsTo(tx, userId, held);
  await eraseInvitationsTo(tx, userId, held, now);
  // Only the personal organisation's settings are the person's (a company's are not).
  await tx.update(organizations).set({ lowBalanceThreshold: null }).where(eq(organizations.id, userId));
  const name = deletedName(userId);
  await tx
    .update(users)
    .set({
      username: name,
      email: deletedEmail(userId),
      passwordHash: args.unusablePasswordHash,
      emailVerified: false,
      tokenVersion: sql`${users.tokenVersion} + 1`,
      lowBalanceThreshold: null,
      disabledAt: now,
      deletedAt: now,
      updatedAt: now,
    })
    .where(eq(users.id, userId));
  await appendSecurityEvent(
    tx,
    // The address the request came from is kept, without the browser: the log's own retention applies.
    { action: "account.deleted", userId, actorLabel: name, origin: { ip: args.origin.ip, userAgent: null } },
    now,
  );
}

/**
 * The billing mails written for the person: the copies are the person's data, while the invoices
 * and credit notes they announced are kept on their own (§ 147 AO). Those of the personal
 * organisation, and those addressed to the person from a team's while they had the address (an
 * earlier one too; another account may have it now, or had it before, and keeps its own). One still
 * unsent is not sent (decision 021: a deleted account is nobody's recipient); one sent keeps its
 * key, so that an event delivered again mails nobody, but not its address or words. A recipient
 * after the first is keyed by the address too (billing-mails.ts, "|to:<address>"): that part
 * becomes the row's id, still unique, as nobody mails the erased person again.
 */
async function eraseMailsTo(tx: Tx, userId: string, held: readonly HeldAddress[]): Promise<void> {
  const mailedTheirs = or(
    eq(billingMails.userId, userId),
    addressedWhileHeld(held, billingMails.to, billingMails.createdAt),
  );
  await tx.delete(billingMails).where(and(mailedTheirs, isNull(billingMails.sentAt)));
  await tx
    .update(billingMails)
    .set({
      to: "",
      subject: "",
      text: "",
      html: "",
      dedupeKey: sql`regexp_replace(${billingMails.dedupeKey}, '[|]to:.*$', '|to:erased:' || ${billingMails.id}::text)`,
    })
    .where(and(mailedTheirs, isNotNull(billingMails.sentAt)));
}

/**
 * The invitations that were the person's and are over: the one they accepted, and those mailed to
 * them (while they had the address) that were revoked or expired. Their address becomes the
 * account's pseudonym; nothing reads it again (only a pending invitation is listed, resent or
 * followed). A pending one stays: it is the team's offer to a mailbox, which the team sees and
 * may revoke, and whoever reads that mailbox may still take it up.
 */
async function eraseInvitationsTo(
  tx: Tx,
  userId: string,
  held: readonly HeldAddress[],
  now: Date,
): Promise<void> {
  const over = or(isNotNull(organizationInvitations.revokedAt), lte(organizationInvitations.expiresAt, now));
  await tx
    .update(organizationInvitations)
    .set({ email: deletedEmail(userId) })
    .where(
      or(
        eq(organizationInvitations.acceptedBy, userId),
        and(
          addressedWhileHeld(held, organizationInvitations.email, organizationInvitations.createdAt),
          isNull(organizationInvitations.acceptedAt),
          over,
        ),
      ),
    );
}
