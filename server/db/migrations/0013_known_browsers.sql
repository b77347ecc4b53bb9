CREATE TABLE "known_browsers" (
	"user_id" uuid NOT NULL,
	"browser_digest" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "known_browsers" ADD CONSTRAINT "known_browsers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "known_browsers_user_browser_key" ON "known_browsers" USING btree ("user_id","browser_digest");