-- Alert latches (decision 051, domain/alert-latches.ts): the low-balance mail and a member cap's
-- 80 % warning go once per fall, remembered in a column instead of read from a crossing. Each
-- starts as sent where what it watches is already past its mark, so the upgrade mails no one.
-- member_credit_usage.cap_warned may be NULL (read as false): the code before this migration
-- inserts its rows from JSON with every column named (db/json-rows.ts) and sends one.
ALTER TABLE "member_credit_usage" ADD COLUMN "cap_warned" boolean DEFAULT false;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "low_balance_alerted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The balance every reader shows: what is left of the grants live now.
UPDATE "organizations" SET "low_balance_alerted" = true
WHERE "low_balance_threshold" IS NOT NULL
  AND coalesce((
    SELECT sum("remaining") FROM "credit_grants"
    WHERE "credit_grants"."user_id" = "organizations"."id"
      AND "granted_at" <= now() AND ("expires_at" IS NULL OR "expires_at" > now())
  ), 0) < "low_balance_threshold";--> statement-breakpoint
-- Past 80 % (CAP_WARNING_SHARE) of the member's cap as it is now.
UPDATE "member_credit_usage" SET "cap_warned" = true
FROM "organization_members"
WHERE "organization_members"."org_id" = "member_credit_usage"."org_id"
  AND "organization_members"."user_id" = "member_credit_usage"."user_id"
  AND "organization_members"."monthly_credit_cap" IS NOT NULL
  AND "member_credit_usage"."amount" > "organization_members"."monthly_credit_cap" * 0.8;
