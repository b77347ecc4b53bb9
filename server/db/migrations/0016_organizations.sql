CREATE TABLE "member_credit_usage" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"month" date NOT NULL,
	"amount" bigint NOT NULL,
	CONSTRAINT "member_credit_usage_org_id_user_id_month_pk" PRIMARY KEY("org_id","user_id","month")
);
--> statement-breakpoint
CREATE TABLE "organization_invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" uuid,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organization_members" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"monthly_credit_cap" bigint,
	"joined_at" timestamp with time zone NOT NULL,
	CONSTRAINT "organization_members_org_id_user_id_pk" PRIMARY KEY("org_id","user_id"),
	CONSTRAINT "organization_members_cap" CHECK ("organization_members"."monthly_credit_cap" is null or "organization_members"."monthly_credit_cap" >= 0)
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text,
	"personal" boolean DEFAULT false NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"dispute_hold_at" timestamp with time zone,
	"low_balance_threshold" bigint,
	CONSTRAINT "organizations_personal_unnamed" CHECK (not "organizations"."personal" or "organizations"."name" is null)
);
--> statement-breakpoint
-- A user row brings its personal organisation, whichever instance writes it (one of the previous
-- version during a rolling deploy too), and takes it along when it is deleted. Made before the
-- backfill below, so a user registered while this migration runs is covered by one or the other.
CREATE FUNCTION "personal_organization_of_user"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "organizations" ("id", "personal", "created_at") VALUES (NEW."id", true, NEW."created_at")
    ON CONFLICT DO NOTHING;
    INSERT INTO "organization_members" ("org_id", "user_id", "role", "joined_at")
    VALUES (NEW."id", NEW."id", 'owner', NEW."created_at") ON CONFLICT DO NOTHING;
    RETURN NEW;
  END IF;
  DELETE FROM "organizations" WHERE "id" = OLD."id" AND "personal";
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_personal_organization" AFTER INSERT OR DELETE ON "users"
FOR EACH ROW EXECUTE FUNCTION "personal_organization_of_user"();
--> statement-breakpoint
-- Every user's personal organisation, with the user's id, as its owner: the billing rows keep their
-- user_id, which now names the paying organisation (decision 027). The low-balance threshold and the
-- dispute hold move with the balance they are about.
INSERT INTO "organizations" ("id", "name", "personal", "created_at", "low_balance_threshold", "dispute_hold_at")
SELECT "id", NULL, true, "created_at", "low_balance_threshold", "dispute_hold_at" FROM "users"
ON CONFLICT ("id") DO UPDATE SET "low_balance_threshold" = excluded."low_balance_threshold",
  "dispute_hold_at" = excluded."dispute_hold_at";
--> statement-breakpoint
INSERT INTO "organization_members" ("org_id", "user_id", "role", "joined_at")
SELECT "id", "id", 'owner', "created_at" FROM "users"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "billing_customers" DROP CONSTRAINT "billing_customers_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "billing_mails" DROP CONSTRAINT "billing_mails_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "checkout_sessions" DROP CONSTRAINT "checkout_sessions_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_adjustments" DROP CONSTRAINT "credit_adjustments_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_grants" DROP CONSTRAINT "credit_grants_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_notes" DROP CONSTRAINT "credit_notes_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "credit_spends" DROP CONSTRAINT "credit_spends_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "invoices" DROP CONSTRAINT "invoices_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "local_card_sessions" DROP CONSTRAINT "local_card_sessions_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "local_subscriptions" DROP CONSTRAINT "local_subscriptions_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "subscriptions" DROP CONSTRAINT "subscriptions_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "created_by" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "shared" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "subject_org_id" uuid;--> statement-breakpoint
-- Every key so far was made by the user whose personal organisation it spends.
UPDATE "api_keys" SET "created_by" = "user_id";--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD COLUMN "address" jsonb;--> statement-breakpoint
ALTER TABLE "member_credit_usage" ADD CONSTRAINT "member_credit_usage_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_invitations" ADD CONSTRAINT "organization_invitations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_invitations" ADD CONSTRAINT "organization_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_members" ADD CONSTRAINT "organization_members_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_members" ADD CONSTRAINT "organization_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "organization_invitations_token_hash_key" ON "organization_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "organization_invitations_org_idx" ON "organization_invitations" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "organization_invitations_inviter_idx" ON "organization_invitations" USING btree ("invited_by","created_at");--> statement-breakpoint
CREATE INDEX "organization_members_user_idx" ON "organization_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "organizations_name_prefix_idx" ON "organizations" USING btree (lower("name") text_pattern_ops);--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_customers" ADD CONSTRAINT "billing_customers_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_mails" ADD CONSTRAINT "billing_mails_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_adjustments" ADD CONSTRAINT "credit_adjustments_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_grants" ADD CONSTRAINT "credit_grants_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_spends" ADD CONSTRAINT "credit_spends_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_card_sessions" ADD CONSTRAINT "local_card_sessions_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_subscriptions" ADD CONSTRAINT "local_subscriptions_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_user_id_organizations_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_created_by_idx" ON "api_keys" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "audit_log_subject_org_idx" ON "audit_log" USING btree ("subject_org_id","seq");