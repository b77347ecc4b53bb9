// Zod schemas of the operator console's calls (/v1/admin, OPERATIONS.md): what support staff and
// admins send and what they are answered. `zod/mini`, browser-safe: the /admin islands validate
// their dialogs with the same objects the server validates the requests with.

import * as z from "zod/mini";
import { roleSchema, subscriptionSchema } from "./account.ts";
import { ADMIN_TEXT, NOTE_MAX, OPERATOR_CREDITS_MAX, REASON_MAX, REASON_MIN } from "./admin-rules.ts";
import { ledgerEntrySchema } from "./billing.ts";
import { notPrintable, printable } from "./free-text.ts";
import { inThousandths } from "./money.ts";

/** The messages, for the server and the tests (the islands import admin-rules.ts, without zod). */
export { ADMIN_TEXT } from "./admin-rules.ts";

const reason = z
  .string({ error: ADMIN_TEXT.reasonRequired })
  .check(
    z.trim(),
    z.minLength(1, ADMIN_TEXT.reasonRequired),
    z.minLength(REASON_MIN, ADMIN_TEXT.reasonTooShort),
    z.maxLength(REASON_MAX, ADMIN_TEXT.reasonTooLong),
    printable(notPrintable("The reason"), true),
  );

/** An idempotency key, like consume's: any text the client keeps for retries. */
const idempotencyKey = z
  .string({ error: ADMIN_TEXT.idempotencyKeyRequired })
  .check(
    z.minLength(1, ADMIN_TEXT.idempotencyKeyRequired),
    z.maxLength(200),
    printable(notPrintable("The idempotency key")),
  );

export const reasonRequestSchema = z.object({ reason });

const creditAmount = z.number({ error: ADMIN_TEXT.amountRequired }).check(
  z.refine((n) => n !== 0 && inThousandths(n), {
    error: ADMIN_TEXT.amountInvalid,
  }),
  z.refine((n) => Math.abs(n) <= OPERATOR_CREDITS_MAX, { error: ADMIN_TEXT.amountTooLarge }),
);

/** `POST /v1/admin/customers/{id}/credits`: a positive amount grants, a negative one takes back. */
export const creditChangeRequestSchema = z.object({
  amount: creditAmount,
  reason,
  /** When granted credits expire (ISO 8601); default: never. Ignored for a take-back. */
  // 40 characters hold a date, a time to the nanosecond and an offset.
  expires_at: z.optional(z.nullable(z.iso.datetime({ offset: true }).check(z.maxLength(40)))),
  idempotency_key: idempotencyKey,
  /**
   * A grant's words to the customer ("Sorry for Tuesday's outage"): /profile shows them with the
   * credits and the grant's mail quotes them. The reason is for staff only (the audit log). One line;
   * blank is none. Ignored for a take-back.
   */
  note: z.optional(
    z.nullable(
      z
        .string()
        .check(
          z.trim(),
          z.maxLength(NOTE_MAX, ADMIN_TEXT.noteTooLong),
          printable(notPrintable("The note to the customer")),
        ),
    ),
  ),
});

export const roleChangeRequestSchema = z.object({ role: roleSchema, reason });

export const CUSTOMER_MAIL_KINDS = ["verification", "password_reset"] as const;
export const customerMailRequestSchema = z.object({ kind: z.enum(CUSTOMER_MAIL_KINDS), reason });

export const refundRequestSchema = z.object({
  /** Minor units; default: all that is not refunded yet. */
  amount: z.optional(z.int().check(z.positive({ error: "Refund a positive amount (minor units)" }))),
  reason,
  idempotency_key: idempotencyKey,
});

/** A grant over the staff member's limit (403): the limit, and what is left of today's when that was met. */
export const grantLimitRefusalSchema = z.object({
  detail: z.string(),
  limit: z.number(),
  left: z.optional(z.number()),
});

/** A take-back of more credits than the customer has (409): how many there are. */
export const takeBackRefusalSchema = z.object({ detail: z.string(), available: z.number() });

/** A refund of more than is left (409): how much may still be refunded (minor units). */
export const refundTooMuchSchema = z.object({ detail: z.string(), refundable: z.number() });

export const refundResultSchema = z.object({
  refund_id: z.string(),
  /** The provider's status: succeeded, pending, ... */
  status: z.string(),
  audit_id: z.string(),
});

export const cancelSubscriptionRequestSchema = z.object({ at: z.enum(["period_end", "now"]), reason });

const instant = z.iso.datetime({ offset: true });

/** One row of the customer search. */
export const customerRowSchema = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  role: roleSchema,
  /** "FREE" or a tier name. */
  plan: z.string(),
  credit_balance: z.number(),
  created_at: instant,
  disabled: z.boolean(),
  /**
   * A search by an API key: the matching keys that are a team organisation's, made by this customer
   * (the member a customer quoting such a key is). Prefix only, never the key. Absent otherwise.
   */
  org_keys: z.optional(
    z.array(z.object({ prefix: z.string(), org_id: z.string(), org_name: z.nullable(z.string()) })),
  ),
});
export type CustomerRow = z.infer<typeof customerRowSchema>;

export const customerSearchSchema = z.object({
  data: z.array(customerRowSchema),
  next_cursor: z.nullable(z.string()),
});

/** A customer's API key as staff see it: never the key, its prefix only. */
export const adminApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: instant,
  last_used_at: z.nullable(instant),
  expires_at: z.nullable(instant),
  revoked_at: z.nullable(instant),
  monthly_credit_limit: z.nullable(z.number()),
  credits_used_this_month: z.number(),
});

/** `GET /v1/admin/customers/{id}`. */
export const customerSchema = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  role: roleSchema,
  email_verified: z.boolean(),
  created_at: instant,
  last_login_at: z.nullable(instant),
  disabled_at: z.nullable(instant),
  /** Set while a lost dispute keeps the account from being charged (an admin clears it). */
  dispute_hold_at: z.nullable(instant),
  subscription: subscriptionSchema,
  credit_balance: z.number(),
  /**
   * Every grant, newest first. `remaining` is what the ledger kept: a grant past its expiry still
   * shows it, though none of it is left to spend (judge by `as_of`, as the balance does).
   */
  credits: z.array(ledgerEntrySchema),
  /**
   * The server's time of the answer: which grants are live or expired is judged by it, as
   * `credit_balance` is, not by the reader's clock. Absent from servers older than this field.
   */
  as_of: z.optional(instant),
  api_keys: z.array(adminApiKeySchema),
  billing_details: z.nullable(
    z.object({
      name: z.nullable(z.string()),
      country: z.nullable(z.string()),
      vat_id: z.nullable(z.string()),
    }),
  ),
  /**
   * The payment provider's customer (cus_…) and latest subscription (sub_…), to find them in
   * Stripe's dashboard; null when the customer never paid. Absent from servers older than these fields.
   */
  provider_customer_id: z.optional(z.nullable(z.string())),
  provider_subscription_id: z.optional(z.nullable(z.string())),
});
export type Customer = z.infer<typeof customerSchema>;

/** One change of a customer's credits in `GET /v1/admin/customers/{id}/ledger`, newest first. */
export const adminLedgerEntrySchema = z.object({
  at: instant,
  /** grant (bought, free or goodwill), spend (per Berlin day and feature), or an adjustment. */
  kind: z.enum([
    "grant",
    "spend",
    "refund",
    "dispute_freeze",
    "dispute_won",
    "dispute_lost",
    "operator_take_back",
    /** Written off when the organisation was deleted. */
    "forfeit",
  ]),
  /** Credits: positive in, negative out. */
  credits: z.number(),
  /**
   * What it was: the grant's source, the feature, or the adjustment's cause; a refund's or a
   * dispute's names the payment as the payments list does (its invoice number, a refund's credit note).
   */
  description: z.string(),
  /** Spends are summed per Berlin day and feature: how many charges the line holds. */
  count: z.number(),
});
export type AdminLedgerEntry = z.infer<typeof adminLedgerEntrySchema>;
export const adminLedgerSchema = z.object({
  data: z.array(adminLedgerEntrySchema),
  next_cursor: z.nullable(z.string()),
});

export const creditNoteSummarySchema = z.object({
  id: z.string(),
  number: z.string(),
  issued_at: instant,
  total: z.number(),
  currency: z.string(),
});

export const adminPaymentSchema = z.object({
  id: z.string(),
  issued_at: instant,
  description: z.string(),
  invoice_number: z.nullable(z.string()),
  status: z.string(),
  currency: z.string(),
  net: z.number(),
  tax: z.number(),
  total: z.number(),
  refunded: z.number(),
  /**
   * A lost dispute (`status: dispute_lost`): what the buyer's bank took back. The rest of
   * `refunded` is what we refunded before it, each refund with its credit note.
   */
  taken_back: z.optional(z.number()),
  /** "open", "won" or "lost" while or after a dispute; null when there was none. */
  dispute: z.nullable(z.string()),
  credit_notes: z.array(creditNoteSummarySchema),
  /**
   * Where it was paid ("stripe", or "local": the embedded checkout), and the provider's ids, to
   * find it in Stripe's dashboard: the invoice (in_…) and the payment (pi_…, or cs_… / in_… when
   * the payment intent was not known). Absent from servers older than these fields.
   */
  provider: z.optional(z.enum(["local", "stripe"])),
  provider_invoice_id: z.optional(z.nullable(z.string())),
  payment_reference: z.optional(z.nullable(z.string())),
});
export type AdminPayment = z.infer<typeof adminPaymentSchema>;
export const adminPaymentListSchema = z.object({ data: z.array(adminPaymentSchema) });

export const auditEntrySchema = z.object({
  id: z.string(),
  seq: z.number(),
  at: instant,
  actor_id: z.nullable(z.string()),
  actor_label: z.string(),
  action: z.string(),
  subject_user_id: z.nullable(z.string()),
  /** The subject's username and address today (null without a subject), for the console to name it. */
  subject_username: z.nullable(z.string()),
  subject_email: z.nullable(z.string()),
  reason: z.nullable(z.string()),
  details: z.record(z.string(), z.unknown()),
  ip: z.nullable(z.string()),
  /** The browser and system of `details.user_agent` as a person reads them ("Chrome 131 on Windows"). */
  browser: z.nullable(z.string()),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
export const auditPageSchema = z.object({
  data: z.array(auditEntrySchema),
  next_cursor: z.nullable(z.string()),
});

export const VAT_SECTION_NAMES = ["domestic", "oss", "reverse_charge", "non_eu", "unclassified"] as const;

/** One line of the quarterly VAT report: minor units with their currency; refund lines negative. */
export const vatLineSchema = z.object({
  section: z.enum(VAT_SECTION_NAMES),
  country: z.nullable(z.string()),
  /** Percent (19, 5.5); null where no rate applies (reverse charge, outside the EU). */
  rate: z.nullable(z.number()),
  vat_id: z.nullable(z.string()),
  /** For a refund line: the quarter of the sale it corrects ("2026-Q3"); null for sales. */
  original_quarter: z.nullable(z.string()),
  currency: z.string(),
  net: z.number(),
  vat: z.number(),
  /** Invoices or credit notes in the line. */
  documents: z.number(),
});
export type VatLineView = z.infer<typeof vatLineSchema>;

/** `GET /v1/admin/reports/vat?quarter=2026-Q4`. */
export const vatReportSchema = z.object({
  quarter: z.string(),
  from: instant,
  to: instant,
  lines: z.array(vatLineSchema),
  totals: z.array(
    z.object({
      section: z.enum([...VAT_SECTION_NAMES, "all"]),
      currency: z.string(),
      net: z.number(),
      vat: z.number(),
    }),
  ),
});
export type VatReportView = z.infer<typeof vatReportSchema>;

/** `GET /v1/admin/metrics?from=&to=`: money in minor units with its currency, days on Berlin's calendar. */
export const metricsSchema = z.object({
  from: z.iso.date(),
  to: z.iso.date(),
  days: z.array(
    z.object({
      date: z.iso.date(),
      signups: z.number(),
      verified_signups: z.number(),
      new_paying_customers: z.number(),
      churned: z.number(),
    }),
  ),
  now: z.object({
    paying_customers: z.array(z.object({ tier: z.string(), customers: z.number() })),
    mrr: z.array(z.object({ currency: z.string(), net: z.number() })),
    open_failed_renewals: z.number(),
    open_disputes: z.number(),
  }),
  months: z.array(
    z.object({
      month: z.string(),
      currency: z.string(),
      net: z.number(),
      vat: z.number(),
      gross: z.number(),
      refunds: z.number(),
    }),
  ),
  credits_per_feature: z.array(
    z.object({ date: z.iso.date(), feature: z.nullable(z.string()), credits: z.number() }),
  ),
});
export type MetricsView = z.infer<typeof metricsSchema>;

/** What a credit change answers: its ledger line, the balance after it and its audit entry. */
export const creditChangeResultSchema = z.extend(adminLedgerEntrySchema, {
  balance_after: z.number(),
  audit_id: z.string(),
  /** True when an earlier call with this idempotency key made the change: nothing more was done. */
  replayed: z.boolean(),
});

/** What an action answers: the audit entry it wrote. */
export const actionResultSchema = z.object({ audit_id: z.string(), detail: z.string() });
