-- The operator console (OPERATIONS.md): the support role, disabled accounts, the dispute hold,
-- credit notes, and the indexes its search uses. ADD VALUE may run in the migration's transaction
-- because nothing here uses the new value (PostgreSQL allows it only after the transaction commits).
ALTER TYPE "public"."user_role" ADD VALUE 'support' BEFORE 'admin';--> statement-breakpoint
CREATE TABLE "credit_notes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"invoice_id" uuid NOT NULL,
	"number" text NOT NULL,
	"series" text NOT NULL,
	"sequence" integer NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"net" integer NOT NULL,
	"tax" integer NOT NULL,
	"total" integer NOT NULL,
	"reference" text NOT NULL,
	"provider_document_id" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_notes_amounts" CHECK ("credit_notes"."net" >= 0 and "credit_notes"."tax" >= 0 and "credit_notes"."total" = "credit_notes"."net" + "credit_notes"."tax")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "dispute_hold_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "last_login_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_reference_key" ON "credit_notes" USING btree ("reference");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_series_sequence_key" ON "credit_notes" USING btree ("series","sequence");--> statement-breakpoint
CREATE INDEX "credit_notes_invoice_idx" ON "credit_notes" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "credit_notes_issued_idx" ON "credit_notes" USING btree ("issued_at");--> statement-breakpoint
CREATE INDEX "users_username_prefix_idx" ON "users" USING btree (lower("username") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "users_email_prefix_idx" ON "users" USING btree (lower("email") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "api_keys_id_prefix_idx" ON "api_keys" USING btree ("id" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "invoices_number_idx" ON "invoices" USING btree ("number");