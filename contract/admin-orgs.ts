// Zod schemas of the operator console's organisation calls (/v1/admin/orgs, ORGANISATIONS.md "The
// operator console"): find an organisation, see it "as for a customer", and act on it with the
// customer actions' roles, reasons and idempotency keys. `zod/mini`, browser-safe.
import * as z from "zod/mini";
import { subscriptionSchema } from "./account.ts";
import { adminApiKeySchema, reasonRequestSchema } from "./admin.ts";
import { ADMIN_ORG_TEXT } from "./admin-org-rules.ts";
import { ledgerEntrySchema } from "./billing.ts";
import { ORG_ROLES } from "./org-roles.ts";

export { ADMIN_ORG_TEXT } from "./admin-org-rules.ts";

const instant = z.iso.datetime({ offset: true });
const orgRole = z.enum(ORG_ROLES);

/** An owner as the search lists them. */
const ownerSchema = z.object({ id: z.string(), username: z.string() });

/** One row of `GET /v1/admin/orgs?q=`. */
export const adminOrgRowSchema = z.object({
  id: z.string(),
  /** Null for a personal organisation (the console shows its owner's name). */
  name: z.nullable(z.string()),
  personal: z.boolean(),
  owners: z.array(ownerSchema),
  /** "FREE" or a tier name. */
  plan: z.string(),
  credit_balance: z.number(),
  member_count: z.number(),
  deleted: z.boolean(),
});
export type AdminOrgRow = z.infer<typeof adminOrgRowSchema>;
export const adminOrgSearchSchema = z.object({ data: z.array(adminOrgRowSchema) });

/** An organisation's key as staff see it: who made it and whether it is shared. */
export const adminOrgKeySchema = z.extend(adminApiKeySchema, {
  created_by: z.nullable(z.string()),
  shared: z.boolean(),
});

/** `GET /v1/admin/orgs/{id}`. */
export const adminOrgSchema = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  personal: z.boolean(),
  created_at: instant,
  deleted_at: z.nullable(instant),
  /** Set while staff keep every key of it from working and nothing is charged to it. */
  disabled_at: z.nullable(instant),
  /** Set while a lost dispute keeps it from being charged (an admin clears it). */
  dispute_hold_at: z.nullable(instant),
  owners: z.array(ownerSchema),
  member_count: z.number(),
  subscription: subscriptionSchema,
  credit_balance: z.number(),
  credits: z.array(ledgerEntrySchema),
  api_keys: z.array(adminOrgKeySchema),
  billing_details: z.nullable(
    z.object({
      name: z.nullable(z.string()),
      country: z.nullable(z.string()),
      vat_id: z.nullable(z.string()),
    }),
  ),
});
export type AdminOrg = z.infer<typeof adminOrgSchema>;

/** `GET /v1/admin/orgs/{id}/members`: every member with the address, for staff. */
export const adminOrgMemberSchema = z.object({
  user_id: z.string(),
  username: z.string(),
  email: z.string(),
  role: orgRole,
  joined_at: instant,
  /** Credits a month the member's keys may spend; null: no cap. */
  monthly_credit_cap: z.nullable(z.number()),
  /** Credits the member's keys spent this Berlin month. */
  spent_this_month: z.number(),
});
export type AdminOrgMember = z.infer<typeof adminOrgMemberSchema>;
export const adminOrgMemberListSchema = z.object({ data: z.array(adminOrgMemberSchema) });

/** `GET /v1/admin/customers/{id}/organizations`: the user's organisations and role in each. */
export const customerOrgSchema = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  personal: z.boolean(),
  role: orgRole,
  deleted: z.boolean(),
});
export type CustomerOrg = z.infer<typeof customerOrgSchema>;
export const customerOrgListSchema = z.object({ data: z.array(customerOrgSchema) });

/** `POST /v1/admin/orgs/{id}/owner`: make a member an owner (recovery after an identity check). */
export const makeOwnerRequestSchema = z.extend(reasonRequestSchema, {
  user_id: z.string({ error: ADMIN_ORG_TEXT.userIdRequired }).check(z.maxLength(64)),
});
