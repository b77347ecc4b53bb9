-- The operator console (OPERATIONS.md): the support role, disabled accounts, the dispute hold,
-- credit notes, the audit log's pruning, and the indexes the search uses. ADD VALUE may run in the
-- migration's transaction because nothing here uses the new value (PostgreSQL allows it only after
-- the transaction commits).
ALTER TYPE "public"."user_role" ADD VALUE 'support' BEFORE 'admin';--> statement-breakpoint
CREATE TABLE "audit_log_pruned" (
	"through_seq" bigint PRIMARY KEY NOT NULL,
	"last_hash" text NOT NULL,
	"rows" bigint NOT NULL,
	"pruned_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
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
CREATE INDEX "invoices_number_idx" ON "invoices" USING btree ("number");--> statement-breakpoint
-- Pruning by retention (npm run audit:prune, written by hand: drizzle-kit does not model
-- triggers): the append-only trigger lets a DELETE through only in a transaction that says it is
-- pruning. That setting guards against accidents, not against someone who holds the database: the
-- chain, the pruning checkpoints and the head hash in the operator's records are what show a
-- change. Production should grant the server's role no DELETE on these tables at all.
CREATE OR REPLACE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'audit_log' AND current_setting('audit_log.pruning', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_log_pruned_no_change" BEFORE UPDATE OR DELETE ON "audit_log_pruned"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_log_pruned_no_truncate" BEFORE TRUNCATE ON "audit_log_pruned"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
