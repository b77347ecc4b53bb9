// Zod schemas of API access (../shared/design/API-ACCESS.md): the customer's API keys, the
// generation service's introspection and metered consume. `zod/mini`, browser-safe: the
// /profile/api-keys page validates its form and reads the answers with the same objects.

import * as z from "zod/mini";
import { API_KEY_NAME_MAX, API_KEY_RULES } from "./api-key-rules.ts";
import { staffChargeReasonSchema } from "./billing.ts";
import { FEATURE_IDS, MAX_QUANTITY } from "./credit-costs.ts";
import { notPrintable, printable } from "./free-text.ts";
import { inThousandths } from "./money.ts";

export const featureIdSchema = z.enum(FEATURE_IDS, { error: API_KEY_RULES.featureUnknown });

/** `POST /v1/api-keys`. */
export const createApiKeyRequestSchema = z.object({
  name: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, API_KEY_RULES.nameRequired),
      z.maxLength(API_KEY_NAME_MAX, API_KEY_RULES.nameTooLong),
      printable(notPrintable("The name")),
    ),
  expires_in_days: z.optional(
    z.nullable(
      z
        .int({ error: API_KEY_RULES.expiryRange })
        .check(z.gte(1, API_KEY_RULES.expiryRange), z.lte(365, API_KEY_RULES.expiryRange)),
    ),
  ),
  /**
   * Credits per Berlin calendar month, more than 0 with at most 3 decimals (kept as millicredits,
   * as a member's cap is: features cost fractions of a credit).
   */
  monthly_credit_limit: z.optional(
    z.nullable(
      z.number({ error: API_KEY_RULES.limitPositive }).check(
        z.gt(0, { error: API_KEY_RULES.limitPositive, abort: true }),
        z.lte(100_000_000, { error: API_KEY_RULES.limitTooLarge, abort: true }),
        z.refine(inThousandths, {
          error: API_KEY_RULES.limitPositive,
        }),
      ),
    ),
  ),
  features: z.optional(
    z.nullable(
      z
        .array(featureIdSchema)
        .check(
          z.minLength(1, API_KEY_RULES.featuresEmpty),
          z.maxLength(FEATURE_IDS.length, API_KEY_RULES.featureUnknown),
        ),
    ),
  ),
  /**
   * A shared key of the organisation (owners only, with X-Organization): no member's removal
   * revokes it and no member cap counts it; it needs a monthly_credit_limit.
   */
  shared: z.optional(z.boolean()),
});
export type CreateApiKeyRequest = z.input<typeof createApiKeyRequestSchema>;

const isoDateTime = z.iso.datetime({ offset: true });

/** A key as `GET /v1/api-keys` lists it (never the key itself). */
export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The start of the key, enough to tell keys apart: "gpk_" and the key id. */
  prefix: z.string(),
  created_at: isoDateTime,
  expires_at: z.nullable(isoDateTime),
  last_used_at: z.nullable(isoDateTime),
  /** Credits per Berlin calendar month, or null for no limit but the balance. */
  monthly_credit_limit: z.nullable(z.number()),
  /** Feature ids the key may be charged for, or null for every feature. */
  features: z.nullable(z.array(z.string())),
  /** Credits charged with this key since the start of this Berlin calendar month. */
  credits_used_this_month: z.number(),
  /** A shared key of the organisation (ORGANISATIONS.md). */
  shared: z.boolean(),
  /** The member who made the key. */
  created_by: z.object({ user_id: z.string(), username: z.nullable(z.string()) }),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListSchema = z.object({
  data: z.array(apiKeySchema),
  /** The server's time of the answer: whether a key has expired is judged by it (see ledgerSchema). */
  as_of: z.optional(isoDateTime),
});

/** `POST /v1/api-keys` 201: the key's fields and, this once, the key. */
export const createdApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string(),
  prefix: z.string(),
  created_at: isoDateTime,
  expires_at: z.nullable(isoDateTime),
  last_used_at: z.null(),
  monthly_credit_limit: z.nullable(z.number()),
  features: z.nullable(z.array(z.string())),
  shared: z.boolean(),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

/** `POST /v1/api-keys/revoke-all`: how many live keys were revoked. */
export const revokedKeysSchema = z.object({ revoked: z.number() });

/**
 * RFC 7662 `POST /v1/introspect` (form-encoded). A missing or empty `token` is not a valid token:
 * it answers `{active: false}` like any other (ACCOUNT-SECURITY.md), not a validation error.
 */
export const introspectRequestSchema = z.object({
  token: z.optional(z.string().check(z.maxLength(4096))),
  token_type_hint: z.optional(z.string().check(z.maxLength(64))),
});

export const introspectionSchema = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    token_type: z.enum(["access_token", "api_key"]),
    /**
     * The paying organisation's id: for an access token and a personal key, the user id. The
     * generation service counts concurrent requests per `sub`.
     */
    sub: z.string(),
    /** The key's member; for a shared key the organisation's name. */
    username: z.string(),
    /** An API key's is always "user"; an access token's is the account's role. */
    role: z.enum(["user", "support", "admin"]),
    /** The organisation whose credits the credential spends (ORGANISATIONS.md). */
    org_id: z.optional(z.string()),
    /** API keys only: the member who made the key, or null for a shared key. */
    member_id: z.optional(z.nullable(z.string())),
    /** API keys only: the member's monthly cap in credits and what their keys spent this month; null without a cap. */
    member_monthly_credit_cap: z.optional(z.nullable(z.number())),
    member_credits_used_this_month: z.optional(z.nullable(z.number())),
    /** API keys only. */
    key_id: z.optional(z.string()),
    /** Seconds since the epoch; absent for a key that never expires. */
    exp: z.optional(z.number()),
    /** "FREE" or the tier's key, "A" to "E". */
    plan: z.string(),
    limits: z.object({ concurrent_requests: z.number() }),
    credit_balance: z.number(),
    /** API keys only: the key's limit in credits, or null for none. */
    monthly_credit_limit: z.optional(z.nullable(z.number())),
    credits_used_this_month: z.optional(z.number()),
    /** Feature ids this credential may be charged for. */
    features: z.array(z.string()),
  }),
]);
export type Introspection = z.infer<typeof introspectionSchema>;

const idempotencyKey = z
  .string()
  .check(z.minLength(1, "Field required"), z.maxLength(200), printable(notPrintable("The idempotency key")));

/** What a malformed `at` of consume is told (the API checks it twice: the schema, then the route). */
export const ISO_DATE_TIME_EXPECTED = "Use an ISO 8601 date-time";

/** `POST /v1/credits/consume` by feature: the generation service's charge for one generation (or a batch). */
export const consumeFeatureRequestSchema = z
  .object({
    user_id: z.optional(z.string().check(z.minLength(1, "Field required"), z.maxLength(64))),
    api_key_id: z.optional(z.string().check(z.minLength(1, "Field required"), z.maxLength(64))),
    feature: featureIdSchema,
    people: z.enum(["one", "multiple"]),
    quantity: z._default(
      z
        .int()
        .check(
          z.gte(1, "Quantity must be at least 1"),
          z.lte(MAX_QUANTITY, `Quantity can be at most ${MAX_QUANTITY}`),
        ),
      1,
    ),
    idempotency_key: idempotencyKey,
    /**
     * Required when staff charge with an admin token (the audit log keeps it); the generation
     * service's charges with a service key leave it out.
     */
    reason: z.optional(staffChargeReasonSchema),
    /**
     * Development only: when the charge happened, for simulated history (npm run usage:simulate).
     * At most 366 days ago and not in the future; any other server refuses it.
     */
    at: z.optional(z.iso.datetime({ offset: true, error: ISO_DATE_TIME_EXPECTED }).check(z.maxLength(40))),
  })
  .check(
    z.refine((body) => (body.user_id === undefined) !== (body.api_key_id === undefined), {
      error: "Give either user_id or api_key_id",
      path: ["user_id"],
    }),
  );

export const consumeAnswerSchema = z.object({
  credit_balance: z.number(),
  /** Credits this request charged (for a repeated idempotency key: what the first one charged). */
  charged: z.number(),
  ledger_entry_id: z.string(),
  /** True when this answer repeats an earlier identical request's (nothing was charged now). */
  replayed: z.boolean(),
});
