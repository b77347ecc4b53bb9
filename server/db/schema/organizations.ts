// Tables of organisations (ORGANISATIONS.md): the billing account that holds a balance, a plan,
// invoices and keys, its members with their roles and monthly caps, and the invitations that bring
// members in.
//
// Every user has a personal organisation whose id is the user's id. The database makes it: a
// trigger on `users` (migration 0016) inserts the organisation and its one member with the user,
// so a user written by any instance, including one of the previous version during a rolling
// deploy, has one. The billing tables keep their `user_id` column and it now references this table
// (decision 027): for every row written before organisations existed, and for every personal
// organisation, the user id already is the organisation id.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { ORG_ROLES } from "../../../contract/org-roles.ts";
import { users } from "./accounts.ts";

const at = (name: string) => timestamp(name, { withTimezone: true });
/** Milli-credits (server/domain/ledger.ts). */
const millicredits = (name: string) => bigint(name, { mode: "number" });

export const organizations = pgTable(
  "organizations",
  {
    /** For a personal organisation, its user's id. */
    id: uuid("id").primaryKey(),
    /** Null for a personal organisation (the portal shows "Personal"). */
    name: text("name"),
    personal: boolean("personal").notNull().default(false),
    /** Who created a team organisation (null for a personal one). */
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: at("created_at").notNull().defaultNow(),
    /**
     * Set by DELETE /v1/orgs/{id}: the row stays for the invoices, payments, ledger and audit it
     * carries (§ 147 AO), with no members, keys or credits.
     */
    deletedAt: at("deleted_at"),
    /** Staff disabled it: every key is inactive and nothing is charged to it. */
    disabledAt: at("disabled_at"),
    /** A dispute was lost after its credits were spent: nothing is charged until staff clear it. */
    disputeHoldAt: at("dispute_hold_at"),
    /** "E-mail me when the balance falls below N credits", in milli-credits; null: no alert. */
    lowBalanceThreshold: millicredits("low_balance_threshold"),
    /**
     * The low-balance mail went for the current fall of the balance; cleared once the balance is
     * back at the threshold (domain/alert-latches.ts), so one fall mails once.
     */
    lowBalanceAlerted: boolean("low_balance_alerted").notNull().default(false),
  },
  (t) => [
    // The console's name prefix search.
    index("organizations_name_prefix_idx").on(sql`lower(${t.name}) text_pattern_ops`),
    check("organizations_personal_unnamed", sql`not ${t.personal} or ${t.name} is null`),
  ],
);
export type OrganizationRow = typeof organizations.$inferSelect;

export const organizationMembers = pgTable(
  "organization_members",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ORG_ROLES }).notNull(),
    /** Milli-credits the member's keys may spend per Berlin month; null: no cap. */
    monthlyCreditCap: millicredits("monthly_credit_cap"),
    joinedAt: at("joined_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId] }),
    // A user's organisations (the switcher, GET /v1/orgs).
    index("organization_members_user_idx").on(t.userId),
    check("organization_members_cap", sql`${t.monthlyCreditCap} is null or ${t.monthlyCreditCap} >= 0`),
  ],
);
export type OrganizationMemberRow = typeof organizationMembers.$inferSelect;

/**
 * Milli-credits charged through each member's keys per organisation and Berlin month, kept by the
 * spend that charges them (in its transaction, under the organisation's lock), as api_key_usage is
 * per key: the cap reads one row instead of summing the month's spends.
 */
export const memberCreditUsage = pgTable(
  "member_credit_usage",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id").notNull(),
    /** The first day of the Berlin month, e.g. 2026-11-01. */
    month: date("month").notNull(),
    amount: millicredits("amount").notNull(),
    /**
     * What open credit leases of the member's keys hold of their month's cap (decision 051). Null
     * reads as 0, as api_key_usage.reserved's does (the code before it sends one when it inserts).
     */
    reserved: millicredits("reserved").default(0),
    /**
     * The 80 % warning went for this month and cap (domain/alert-latches.ts); a cap change re-arms
     * it. Null reads as false: the code before it inserts every column from JSON and sends one.
     */
    capWarned: boolean("cap_warned").default(false),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId, t.month] }),
    check("member_credit_usage_reserved_positive", sql`${t.reserved} >= 0`),
  ],
);

/**
 * An invitation mailed to an address: the link's token is stored only as its SHA-256, works once
 * and for 7 days. Pending while neither accepted nor revoked and not expired.
 */
export const organizationInvitations = pgTable(
  "organization_invitations",
  {
    id: uuid("id").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** As typed by the inviter (trimmed, domain lower-cased); compared ignoring case. */
    email: text("email").notNull(),
    role: text("role", { enum: ORG_ROLES }).notNull(),
    /** Hex SHA-256 of the token; a resend replaces it, so the old link stops working. */
    tokenHash: text("token_hash").notNull(),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    acceptedAt: at("accepted_at"),
    acceptedBy: uuid("accepted_by"),
    revokedAt: at("revoked_at"),
  },
  (t) => [
    uniqueIndex("organization_invitations_token_hash_key").on(t.tokenHash),
    index("organization_invitations_org_idx").on(t.orgId, t.createdAt),
    // The per-inviter hourly limit counts these.
    index("organization_invitations_inviter_idx").on(t.invitedBy, t.createdAt),
  ],
);
export type OrganizationInvitationRow = typeof organizationInvitations.$inferSelect;
