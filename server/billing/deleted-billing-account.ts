// Whether an organisation was deleted, for the money paths that must refund rather than grant, and
// send nothing. A team organisation's row is marked (DELETE /v1/orgs/{id}); a personal
// organisation's is not, its account is (accounts/account-deletion.ts keeps the row for the
// ledger and invoices that hang on it). Every path asks here, so none forgets the second case.
import { and, eq, sql } from "drizzle-orm";
import { organizations, users } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";

/** The join that brings in a personal organisation's account (none for a team's). */
export const personalAccount = and(eq(organizations.personal, true), eq(users.id, organizations.id));

/** True when the organisation is deleted; select it with `.leftJoin(users, personalAccount)`. */
export const organisationIsDeleted = sql<boolean>`(${organizations.deletedAt} is not null or ${users.deletedAt} is not null)`;

/** Whether the organisation was deleted (with its account, for a personal one); false if unknown. */
export async function billingAccountDeleted(db: DbOrTx, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ deleted: organisationIsDeleted })
    .from(organizations)
    .leftJoin(users, personalAccount)
    .where(eq(organizations.id, orgId));
  return row?.deleted === true;
}
