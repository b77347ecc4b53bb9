CREATE TABLE "api_key_usage" (
	"api_key_id" text NOT NULL,
	"month" date NOT NULL,
	"amount" bigint NOT NULL,
	CONSTRAINT "api_key_usage_api_key_id_month_pk" PRIMARY KEY("api_key_id","month")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"monthly_credit_limit" bigint,
	"features" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_limit_positive" CHECK ("api_keys"."monthly_credit_limit" is null or "api_keys"."monthly_credit_limit" > 0)
);
--> statement-breakpoint
CREATE TABLE "service_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "credit_spends" ADD COLUMN "api_key_id" text;--> statement-breakpoint
ALTER TABLE "credit_spends" ADD COLUMN "feature" text;--> statement-breakpoint
ALTER TABLE "credit_spends" ADD COLUMN "people" text;--> statement-breakpoint
ALTER TABLE "credit_spends" ADD COLUMN "quantity" integer;--> statement-breakpoint
ALTER TABLE "api_key_usage" ADD CONSTRAINT "api_key_usage_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "credit_spends_api_key_idx" ON "credit_spends" USING btree ("api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "credit_spends_user_created_idx" ON "credit_spends" USING btree ("user_id","created_at");