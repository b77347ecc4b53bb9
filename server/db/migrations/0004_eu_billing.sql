CREATE TABLE "billing_mails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"to" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "credit_adjustments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"grant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"reference" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_adjustments_amount" CHECK ("credit_adjustments"."amount" >= 0)
);
--> statement-breakpoint
CREATE TABLE "invoice_sequences" (
	"series" text PRIMARY KEY NOT NULL,
	"last" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"fulfilment_key" text NOT NULL,
	"provider" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"number" text,
	"series" text,
	"sequence" integer,
	"issued_at" timestamp with time zone NOT NULL,
	"description" text NOT NULL,
	"currency" text NOT NULL,
	"net" integer NOT NULL,
	"tax" integer NOT NULL,
	"total" integer NOT NULL,
	"refunded" integer DEFAULT 0 NOT NULL,
	"tax_treatment" text,
	"tax_rate_basis_points" integer,
	"seller" jsonb NOT NULL,
	"buyer" jsonb NOT NULL,
	"provider_invoice_id" text,
	"payment_reference" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "invoices_amounts" CHECK ("invoices"."net" >= 0 and "invoices"."tax" >= 0 and "invoices"."total" = "invoices"."net" + "invoices"."tax"),
	CONSTRAINT "invoices_refunded_range" CHECK ("invoices"."refunded" >= 0 and "invoices"."refunded" <= "invoices"."total")
);
--> statement-breakpoint
CREATE TABLE "local_card_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"return_url" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "provider_invoice_documents" (
	"invoice_id" text PRIMARY KEY NOT NULL,
	"number" text,
	"hosted_invoice_url" text,
	"invoice_pdf_url" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "country" text;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "vat_id" text;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "details_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "buyer_name" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "buyer_country" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "buyer_vat_id" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "tax_treatment" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "tax_rate_basis_points" integer;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "amount_tax" integer;--> statement-breakpoint
ALTER TABLE "credit_grants" ADD COLUMN "frozen" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "billing_mails" ADD CONSTRAINT "billing_mails_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_adjustments" ADD CONSTRAINT "credit_adjustments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_adjustments" ADD CONSTRAINT "credit_adjustments_grant_id_credit_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."credit_grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_card_sessions" ADD CONSTRAINT "local_card_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_mails_dedupe_key_key" ON "billing_mails" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "billing_mails_unsent_idx" ON "billing_mails" USING btree ("created_at") WHERE "billing_mails"."sent_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_adjustments_reference_key" ON "credit_adjustments" USING btree ("reference");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_fulfilment_key_key" ON "invoices" USING btree ("fulfilment_key");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_series_sequence_key" ON "invoices" USING btree ("series","sequence");--> statement-breakpoint
CREATE INDEX "invoices_user_issued_idx" ON "invoices" USING btree ("user_id","issued_at");--> statement-breakpoint
ALTER TABLE "credit_grants" ADD CONSTRAINT "credit_grants_frozen_range" CHECK ("credit_grants"."frozen" >= 0 and "credit_grants"."remaining" + "credit_grants"."frozen" <= "credit_grants"."amount");