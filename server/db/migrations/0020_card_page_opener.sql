ALTER TABLE "local_card_sessions" ADD COLUMN "opened_by" uuid;--> statement-breakpoint
ALTER TABLE "local_card_sessions" ADD CONSTRAINT "local_card_sessions_opened_by_users_id_fk" FOREIGN KEY ("opened_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- A personal organisation's card pages were all opened by its one member, its user.
UPDATE "local_card_sessions" SET "opened_by" = "local_card_sessions"."user_id"
  FROM "organizations"
  WHERE "organizations"."id" = "local_card_sessions"."user_id" AND "organizations"."personal" AND EXISTS (
    SELECT 1 FROM "users" WHERE "users"."id" = "local_card_sessions"."user_id"
  );--> statement-breakpoint
-- A team's open pages name nobody, so no loss of billing could end them, and a page takes a card
-- only for a member who may still manage billing (decision 045): they expire now, an hour early at
-- most, and the member opens a new one from the billing page. Used and lapsed pages stay as they were.
UPDATE "local_card_sessions" SET "expires_at" = now()
  WHERE "opened_by" IS NULL AND "used_at" IS NULL AND "expires_at" > now();
