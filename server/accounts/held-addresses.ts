// The addresses an account has had, each with the time it had it, for the erasure (decision 021,
// addendum "Every address the account had"). A change of address takes over only through its link
// (email-change.ts), and every link followed stays as a used `email_changes` row: a change's row
// holds the address it gave, a way back's the address it gave back, and the way back mailed at the
// first change holds the address the account registered with. No other path changes an address,
// and the audit log's `email.*` entries name none, so these rows are the whole history.
// An address is unique among accounts only at one time: another account may register it once this
// one has moved on, or have had it before. So each address comes with its period, and a record
// addressed to it is this account's only when written within it.
import { and, eq, gte, lt, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Logger } from "pino";
import { emailChanges, type UserRow } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";

/** An address, lower-cased, and when the account had it: from `from` until `until` (null: still). */
export interface HeldAddress {
  email: string;
  from: Date;
  until: Date | null;
}

/** What `heldAddresses` reads of an `email_changes` row. */
export interface AddressLink {
  kind: "change" | "revert";
  email: string;
  createdAt: Date;
  usedAt: Date | null;
}

/**
 * The account's addresses, oldest first, from its links: the one it registered with from its
 * creation, then each link's address from the instant it was followed, the current one last.
 *
 * The registered address is known only from the first change's way back, issued in the instant
 * that change was followed. Should that row be missing, the address is unknown: another way back
 * holds the address before a later change, which the account had only from an earlier link on,
 * and pinning it (or any guess) to the time since the creation would erase another account's mails
 * at it (decision 021, addendum: "only the person's"). So that period is left out, and the
 * operator is told, to erase what was mailed to the first address by hand.
 */
export function heldAddresses(
  account: Pick<UserRow, "id" | "email" | "createdAt">,
  links: readonly AddressLink[],
  logger: Pick<Logger, "warn">,
): HeldAddress[] {
  const followed = links
    .filter((l): l is AddressLink & { usedAt: Date } => l.usedAt !== null)
    .sort((a, b) => a.usedAt.getTime() - b.usedAt.getTime());
  const [first] = followed;
  const periods: HeldAddress[] = [];
  let email: string | undefined = account.email;
  let from = account.createdAt;
  if (first) {
    // The first change's way back is never deleted while the account lives (a way back deletes
    // only those issued after its own), and holds the address the account had before it.
    email = links.find((l) => l.kind === "revert" && l.createdAt.getTime() === first.usedAt.getTime())?.email;
    if (email === undefined) {
      logger.warn({ userId: account.id }, `Erasure: address history incomplete for account ${account.id}`);
    }
  }
  for (const link of followed) {
    if (email !== undefined) periods.push({ email: email.toLowerCase(), from, until: link.usedAt });
    email = link.email;
    from = link.usedAt;
  }
  periods.push({ email: account.email.toLowerCase(), from, until: null });
  return periods;
}

/** `heldAddresses` of the account, read from its links (before the erasure deletes them). */
export async function readHeldAddresses(
  db: DbOrTx,
  account: Pick<UserRow, "id" | "email" | "createdAt">,
  logger: Pick<Logger, "warn">,
): Promise<HeldAddress[]> {
  const links = await db
    .select({
      kind: emailChanges.kind,
      email: emailChanges.email,
      createdAt: emailChanges.createdAt,
      usedAt: emailChanges.usedAt,
    })
    .from(emailChanges)
    .where(eq(emailChanges.userId, account.id));
  return heldAddresses(account, links, logger);
}

/**
 * A row addressed (`to`, any case) to one of `held` and written (`at`) while the account had it;
 * none for no address (never "every row", as an empty `or` would be inside an `and`).
 */
export function addressedWhileHeld(held: readonly HeldAddress[], to: PgColumn, at: PgColumn): SQL {
  const periods = held.map((h) =>
    and(sql`lower(${to}) = ${h.email}`, gte(at, h.from), h.until === null ? undefined : lt(at, h.until)),
  );
  return or(...periods) ?? sql`false`;
}
