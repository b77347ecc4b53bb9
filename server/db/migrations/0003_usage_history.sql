CREATE TABLE "usage_daily" (
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"feature" text NOT NULL,
	"api_key_id" text NOT NULL,
	"uses" bigint NOT NULL,
	"credits" bigint NOT NULL,
	CONSTRAINT "usage_daily_user_id_day_feature_api_key_id_pk" PRIMARY KEY("user_id","day","feature","api_key_id")
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "low_balance_threshold" bigint;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The charges made before this migration, summed the way the spends add to the table from now on.
INSERT INTO "usage_daily" ("user_id", "day", "feature", "api_key_id", "uses", "credits")
SELECT "user_id", ("created_at" AT TIME ZONE 'Europe/Berlin')::date, coalesce("feature", ''), coalesce("api_key_id", ''),
       sum(coalesce("quantity", 1)), sum("amount")
FROM "credit_spends"
GROUP BY 1, 2, 3, 4;
