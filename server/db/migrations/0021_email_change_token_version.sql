ALTER TABLE "email_changes" ADD COLUMN "token_version" integer;--> statement-breakpoint
-- A change link pending now was asked for under a token version nobody wrote down: it may come from
-- a session the owner has since ended by signing out everywhere or setting a new password, which
-- is what the column guards against (a review's MEDIUM 2). Such links end now, within 24 hours of
-- their own end; the owner asks again from /profile/security. Used change links stay as history
-- (the way back's review reads when they were asked for), and ways back are untouched: they are
-- the owner's.
DELETE FROM "email_changes" WHERE "kind" = 'change' AND "used_at" IS NULL;
