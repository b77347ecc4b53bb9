ALTER TABLE "billing_customers" ADD COLUMN "vat_id_status" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "opened_by" uuid;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_opened_by_users_id_fk" FOREIGN KEY ("opened_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Before this, a VAT ID on file gave reverse charge as it was (the local checkout confirmed every
-- well-formed one; Stripe Tax decided on its own): it keeps doing so. A later
-- customer.tax_id.updated from Stripe corrects the state (decision 031).
UPDATE "billing_customers" SET "vat_id_status" = 'verified' WHERE "vat_id" IS NOT NULL;--> statement-breakpoint
-- A personal organisation's sessions were all opened by its one member, its user. A team's earlier
-- sessions name nobody: a member's removal leaves them to expire on their own (24 hours at most).
UPDATE "checkout_sessions" SET "opened_by" = "checkout_sessions"."user_id"
  FROM "organizations"
  WHERE "organizations"."id" = "checkout_sessions"."user_id" AND "organizations"."personal" AND EXISTS (
    SELECT 1 FROM "users" WHERE "users"."id" = "checkout_sessions"."user_id"
  );
