// Credit leases (decision 051): a slice of one API key's spending that one server instance holds,
// so that it can decide that key's charges without the organisation's lock and reads. Taking one
// reserves its amount on the grants it comes from (credit_grants.reserved) and on the key's and
// member's month (api_key_usage.reserved, member_credit_usage.reserved); ending one gives back what
// its charges did not spend. Rows are never deleted: a charge names the lease it was made through.
import { sql } from "drizzle-orm";
import { bigint, check, date, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { apiKeys } from "./api-access.ts";
import { organizations } from "./organizations.ts";

const at = (name: string) => timestamp(name, { withTimezone: true });

export const creditLeases = pgTable(
  "credit_leases",
  {
    id: uuid("id").primaryKey(),
    /** The paying organisation, whose grants the lease holds a part of. */
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    /** The member whose monthly cap the lease counts against; null for a shared or personal key. */
    memberId: uuid("member_id"),
    /** The Berlin month its charges count in, by its first day: a lease never spans two. */
    month: date("month").notNull(),
    /** Milli-credits reserved in all. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    /** Where the amount is reserved: [{grantId, amount}] in spending order, summing to `amount`. */
    takes: jsonb("takes").$type<{ grantId: string; amount: number }[]>().notNull(),
    /** Which server instance holds it (the logs' instance id). */
    holder: text("holder").notNull(),
    createdAt: at("created_at").notNull(),
    /** No charge is written through the lease from then on (the database's clock decides). */
    expiresAt: at("expires_at").notNull(),
    /** When it was ended and its unspent part given back; null while open. */
    endedAt: at("ended_at"),
    /** Why it ended: expired, revoked, the organisation's credits changed, ... (for the logs). */
    endedBecause: text("ended_because"),
  },
  (t) => [
    index("credit_leases_open_org_idx").on(t.orgId).where(sql`${t.endedAt} is null`),
    index("credit_leases_open_expiry_idx").on(t.expiresAt).where(sql`${t.endedAt} is null`),
    check("credit_leases_amount_positive", sql`${t.amount} > 0`),
  ],
);
export type CreditLeaseRow = typeof creditLeases.$inferSelect;
