CREATE TABLE "auto_top_up_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"status" text NOT NULL,
	"provider" text NOT NULL,
	"product_id" text NOT NULL,
	"credits" integer NOT NULL,
	"currency" text NOT NULL,
	"net" integer NOT NULL,
	"gross" integer NOT NULL,
	"payment_method_id" text NOT NULL,
	"provider_invoice_id" text,
	"sent_at" timestamp with time zone,
	"pay_url" text,
	"decline_code" text,
	"detail" text,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auto_top_up_attempts_amounts" CHECK ("auto_top_up_attempts"."net" > 0 and "auto_top_up_attempts"."gross" >= "auto_top_up_attempts"."net")
);
--> statement-breakpoint
CREATE TABLE "auto_top_up_consents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"user_email" text NOT NULL,
	"text_version" text NOT NULL,
	"text" text NOT NULL,
	"choice" jsonb NOT NULL,
	"client_address" text,
	"user_agent" text,
	"accepted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auto_top_up_settings" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'off' NOT NULL,
	"reason" text,
	"reason_detail" text,
	"decline_code" text,
	"paused_until" timestamp with time zone,
	"threshold" integer NOT NULL,
	"product_id" text NOT NULL,
	"monthly_limit" integer NOT NULL,
	"currency" text NOT NULL,
	"card_payment_method_id" text,
	"consent_id" uuid,
	"updated_by" uuid,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auto_top_up_threshold_positive" CHECK ("auto_top_up_settings"."threshold" > 0),
	CONSTRAINT "auto_top_up_limit_positive" CHECK ("auto_top_up_settings"."monthly_limit" > 0)
);
--> statement-breakpoint
CREATE TABLE "card_setup_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"org_id" uuid NOT NULL,
	"opened_by" uuid,
	"customer_id" text NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"url" text NOT NULL,
	"success_url" text NOT NULL,
	"cancel_url" text NOT NULL,
	"consent_text" text NOT NULL,
	"setup_intent_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "local_invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"attempt_id" uuid NOT NULL,
	"payment_method_id" text NOT NULL,
	"product_id" text NOT NULL,
	"description" text NOT NULL,
	"currency" text NOT NULL,
	"net" integer NOT NULL,
	"tax" integer NOT NULL,
	"total" integer NOT NULL,
	"tax_treatment" text NOT NULL,
	"tax_rate_basis_points" integer NOT NULL,
	"buyer_name" text,
	"buyer_email" text,
	"buyer_country" text,
	"buyer_vat_id" text,
	"status" text NOT NULL,
	"payment_intent_id" text NOT NULL,
	"last_error_code" text,
	"last_decline_code" text,
	"created_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"voided_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "local_payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"org_id" uuid NOT NULL,
	"card_number" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"setup_intent_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"detached_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "saved_cards" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"payment_method_id" text NOT NULL,
	"setup_intent_id" text NOT NULL,
	"setup_at" timestamp with time zone NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"saved_by" uuid,
	"saved_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auto_top_up_attempts" ADD CONSTRAINT "auto_top_up_attempts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_top_up_settings" ADD CONSTRAINT "auto_top_up_settings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auto_top_up_settings" ADD CONSTRAINT "auto_top_up_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_setup_sessions" ADD CONSTRAINT "card_setup_sessions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_setup_sessions" ADD CONSTRAINT "card_setup_sessions_opened_by_users_id_fk" FOREIGN KEY ("opened_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_invoices" ADD CONSTRAINT "local_invoices_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_payment_methods" ADD CONSTRAINT "local_payment_methods_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_cards" ADD CONSTRAINT "saved_cards_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_cards" ADD CONSTRAINT "saved_cards_saved_by_users_id_fk" FOREIGN KEY ("saved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "auto_top_up_attempts_one_open" ON "auto_top_up_attempts" USING btree ("org_id") WHERE "auto_top_up_attempts"."status" in ('processing', 'authentication_required');--> statement-breakpoint
CREATE INDEX "auto_top_up_attempts_org_created_idx" ON "auto_top_up_attempts" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "auto_top_up_attempts_invoice_key" ON "auto_top_up_attempts" USING btree ("provider_invoice_id");--> statement-breakpoint
CREATE INDEX "auto_top_up_attempts_open_idx" ON "auto_top_up_attempts" USING btree ("updated_at") WHERE "auto_top_up_attempts"."status" in ('processing', 'authentication_required');--> statement-breakpoint
CREATE INDEX "auto_top_up_consents_org_idx" ON "auto_top_up_consents" USING btree ("org_id","accepted_at");--> statement-breakpoint
CREATE INDEX "card_setup_sessions_org_idx" ON "card_setup_sessions" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "local_invoices_attempt_key" ON "local_invoices" USING btree ("attempt_id");--> statement-breakpoint
CREATE INDEX "local_payment_methods_customer_idx" ON "local_payment_methods" USING btree ("customer_id");