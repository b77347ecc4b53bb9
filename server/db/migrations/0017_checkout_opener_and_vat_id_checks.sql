CREATE TABLE "vat_id_checks" (
	"customer_id" text NOT NULL,
	"vat_id" text NOT NULL,
	"status" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "vat_id_checks_customer_id_vat_id_pk" PRIMARY KEY("customer_id","vat_id")
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "opened_by" uuid;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_opened_by_users_id_fk" FOREIGN KEY ("opened_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Before this, a VAT ID on file gave reverse charge as it was (the local checkout confirmed every
-- well-formed one; Stripe Tax decided on its own): it keeps doing so, as a check of today. A later
-- customer.tax_id.updated from Stripe corrects it (decision 031).
INSERT INTO "vat_id_checks" ("customer_id", "vat_id", "status", "checked_at")
  SELECT "customer_id", upper(regexp_replace("vat_id", '[[:space:]./-]', '', 'g')), 'verified', now()
  FROM "billing_customers" WHERE "vat_id" IS NOT NULL
  ON CONFLICT DO NOTHING;--> statement-breakpoint
-- A personal organisation's sessions were all opened by its one member, its user. A team's earlier
-- sessions name nobody: a member's removal leaves them to expire on their own (24 hours at most).
UPDATE "checkout_sessions" SET "opened_by" = "checkout_sessions"."user_id"
  FROM "organizations"
  WHERE "organizations"."id" = "checkout_sessions"."user_id" AND "organizations"."personal" AND EXISTS (
    SELECT 1 FROM "users" WHERE "users"."id" = "checkout_sessions"."user_id"
  );
