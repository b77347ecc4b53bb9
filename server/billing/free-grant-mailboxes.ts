// One free grant per mailbox (ACCOUNT-SECURITY.md): the first account to verify an address of a
// mailbox claims the mailbox's free credits; later accounts of the same mailbox get none.
import { hash } from "node:crypto";
import { canonicalMailbox } from "../auth/mailbox.ts";
import { freeGrantMailboxes } from "../db/schema/index.ts";
import type { Tx } from "../db/types.ts";

/** The stored form of a mailbox: a digest, so the row keeps no address once its account is erased. */
export const mailboxDigest = (address: string) => hash("sha256", `free-grant:${canonicalMailbox(address)}`);

/**
 * Claims `address`'s mailbox for the free credits in `tx`; true for the first claim only. Two
 * verifications racing for one mailbox meet at the primary key: one inserts, the other waits for
 * its commit and finds the row (or takes over if it rolled back).
 */
export async function claimFreeGrantMailbox(tx: Tx, address: string, at: Date): Promise<boolean> {
  const claimed = await tx
    .insert(freeGrantMailboxes)
    .values({ mailboxDigest: mailboxDigest(address), grantedAt: at })
    .onConflictDoNothing()
    .returning({ digest: freeGrantMailboxes.mailboxDigest });
  return claimed.length > 0;
}
