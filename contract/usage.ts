// Zod schemas of usage history: what the metered charges (POST /v1/credits/consume) spent, per
// Berlin day, feature or API key, over a range of days. `zod/mini`, browser-safe: /profile/usage
// reads the answers with the same objects.
import * as z from "zod/mini";

/** Days asked for when the range is not given: today (Berlin) and the 29 before it. */
export const USAGE_DEFAULT_DAYS = 30;
/** The longest range one call may ask for, in days, both ends included. */
export const USAGE_MAX_DAYS = 366;

export const USAGE_DIMENSIONS = ["day", "feature", "api_key", "member"] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

import { MEMBER_GROUPS } from "./usage-members.ts";

export { type MemberGroup, memberGroupLabel } from "./usage-members.ts";

export const USAGE_RULES = {
  dateFormat: "Use a date as YYYY-MM-DD",
  groupBy: `Group by ${USAGE_DIMENSIONS.join(", ")}, or several of them separated by commas`,
  order: "'from' must not be after 'to'",
  tooLong: `The range can be at most ${USAGE_MAX_DAYS} days`,
} as const;

const dateParam = z.optional(
  // A string too long to be a date is told once, not also that it is no date.
  z
    .string()
    .check(
      z.maxLength(10, { error: USAGE_RULES.dateFormat, abort: true }),
      z.iso.date({ error: USAGE_RULES.dateFormat }),
    ),
);

/**
 * The query of `GET /v1/usage` and `GET /v1/usage.csv`. Both ends are Berlin calendar days and
 * both are included. `group_by` takes one dimension or several, comma-separated ("day,feature" is
 * what a chart stacked by feature needs).
 */
export const usageQuerySchema = z.object({
  from: dateParam,
  to: dateParam,
  group_by: z.optional(
    z.pipe(
      z.string().check(z.maxLength(40, USAGE_RULES.groupBy)),
      z.transform((text) => [...new Set(text.split(",").map((part) => part.trim()))]),
    ),
  ),
});

/** One group of charges. Only the fields of the asked dimensions are present. */
export const usageRowSchema = z.object({
  /** The Berlin calendar day, YYYY-MM-DD. */
  date: z.optional(z.iso.date()),
  /** The feature id (contract/credit-costs.ts); null for the admin's manual charges. */
  feature: z.optional(z.nullable(z.string())),
  /** The API key the charges were made with; null for charges made without one. */
  api_key_id: z.optional(z.nullable(z.string())),
  /** The key's name and prefix when the row names a key (a revoked key keeps both). */
  api_key_name: z.optional(z.nullable(z.string())),
  api_key_prefix: z.optional(z.nullable(z.string())),
  /** group_by=member: whose charges these are (MEMBER_GROUPS). */
  member_group: z.optional(z.enum(MEMBER_GROUPS)),
  /** The member who made the keys (null for shared keys, charges without a key, or a gone account). */
  member_id: z.optional(z.nullable(z.string())),
  member_username: z.optional(z.nullable(z.string())),
  /** Generations counted: the charges' quantities (a manual charge counts one). */
  uses: z.number(),
  /** Credits the charges spent. */
  credits: z.number(),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

export const usageSchema = z.object({
  /** The range the answer covers (the defaults filled in). */
  from: z.iso.date(),
  to: z.iso.date(),
  data: z.array(usageRowSchema),
  total: z.object({ uses: z.number(), credits: z.number() }),
});

/** The CSV's columns, one row per charge, oldest first. */
export const USAGE_CSV_COLUMNS = [
  "time",
  "feature",
  "people",
  "quantity",
  "credits",
  "key_name",
  "key_prefix",
  "idempotency_key",
] as const;

/** The column a team organisation's CSV adds: the member whose key made the charge (memberGroupLabel). */
export const USAGE_CSV_MEMBER_COLUMN = "member";
