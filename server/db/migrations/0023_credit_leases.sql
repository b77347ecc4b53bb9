-- Credit leases (decision 051). The reserved columns start at 0 for every row there is. Those of
-- api_key_usage and member_credit_usage may be NULL (read as 0): the code before this migration
-- inserts their rows from JSON with every column named (db/json-rows.ts), so during a rolling
-- upgrade it sends a NULL, which a NOT NULL column would refuse, failing its metered charges.
CREATE TABLE "credit_leases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"api_key_id" text NOT NULL,
	"member_id" uuid,
	"month" date NOT NULL,
	"amount" bigint NOT NULL,
	"takes" jsonb NOT NULL,
	"holder" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"ended_because" text,
	CONSTRAINT "credit_leases_amount_positive" CHECK ("credit_leases"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "api_key_usage" ADD COLUMN "reserved" bigint DEFAULT 0;--> statement-breakpoint
ALTER TABLE "credit_grants" ADD COLUMN "reserved" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_spends" ADD COLUMN "lease_id" uuid;--> statement-breakpoint
ALTER TABLE "member_credit_usage" ADD COLUMN "reserved" bigint DEFAULT 0;--> statement-breakpoint
ALTER TABLE "credit_leases" ADD CONSTRAINT "credit_leases_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_leases" ADD CONSTRAINT "credit_leases_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_leases_open_org_idx" ON "credit_leases" USING btree ("org_id") WHERE "credit_leases"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "credit_leases_open_expiry_idx" ON "credit_leases" USING btree ("expires_at") WHERE "credit_leases"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "credit_spends_lease_idx" ON "credit_spends" USING btree ("lease_id") WHERE "credit_spends"."lease_id" is not null;--> statement-breakpoint
ALTER TABLE "api_key_usage" ADD CONSTRAINT "api_key_usage_reserved_positive" CHECK ("api_key_usage"."reserved" >= 0);--> statement-breakpoint
ALTER TABLE "credit_grants" ADD CONSTRAINT "credit_grants_reserved_range" CHECK ("credit_grants"."reserved" >= 0 and "credit_grants"."reserved" <= "credit_grants"."remaining");--> statement-breakpoint
ALTER TABLE "member_credit_usage" ADD CONSTRAINT "member_credit_usage_reserved_positive" CHECK ("member_credit_usage"."reserved" >= 0);