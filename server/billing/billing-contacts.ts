// Who an organisation's billing speaks to (ORGANISATIONS.md, "The model"): its billing e-mail, which
// the provider customer, invoices and receipts carry, and the people billing mails go to. A team
// organisation has no users row of its own, so nothing in billing may read one by the billing
// account's id: it asks here.
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import { billingCustomers, organizationMembers, organizations, users } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { type BillingMember, billingRecipients } from "../domain/billing-recipients.ts";
import type { MailUser } from "../mail/billing-templates.ts";

/**
 * The owners of `orgId`, then its billing members, each in the order they joined; never a deleted
 * account. Its address is a pseudonym under `.invalid` that reaches nobody, and the person asked to
 * be erased (decision 021, "Mails after the erasure"): a deleted account's personal organisation,
 * whose billing e-mail the erasure cleared too, has nobody left to mail, so what is queued for it
 * after the erasure (a late payment's receipt, say) is not queued at all.
 */
async function billingMembers(db: DbOrTx, orgId: string): Promise<BillingMember[]> {
  return db
    .select({ email: users.email, username: users.username })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(
      and(
        eq(organizationMembers.orgId, orgId),
        inArray(organizationMembers.role, ["owner", "billing"]),
        isNull(users.deletedAt),
      ),
    )
    .orderBy(desc(eq(organizationMembers.role, "owner")), asc(organizationMembers.joinedAt), asc(users.id));
}

/** The organisation's name, and the billing e-mail its details name (null: none set). */
async function organisationContact(
  db: DbOrTx,
  orgId: string,
): Promise<{ name: string | null; billingEmail: string | null } | undefined> {
  const [row] = await db
    .select({ name: organizations.name, billingEmail: billingCustomers.email })
    .from(organizations)
    .leftJoin(billingCustomers, eq(billingCustomers.userId, organizations.id))
    .where(eq(organizations.id, orgId));
  return row;
}

/** A team organisation's name; null for a personal one (whose row has none) or an unknown id. */
export async function teamName(db: DbOrTx, orgId: string): Promise<string | null> {
  const [row] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row?.name ?? null;
}

/** Everyone billing mails of `orgId` go to (see billingRecipients); empty for an unknown organisation. */
export async function billingMailRecipients(db: DbOrTx, orgId: string): Promise<MailUser[]> {
  const [contact, members] = await Promise.all([organisationContact(db, orgId), billingMembers(db, orgId)]);
  if (!contact) return [];
  return billingRecipients(contact.billingEmail, contact.name ?? members[0]?.username ?? "", members);
}

/**
 * The organisation's billing e-mail: the one its billing details give, else its first owner's (a personal organisation's: its user's, as before organisations). The provider
 * customer and the invoices carry it; never the address of the member who happened to click.
 */
export async function billingEmailOf(db: DbOrTx, orgId: string): Promise<string | null> {
  const [first] = await billingMailRecipients(db, orgId);
  return first?.email ?? null;
}
