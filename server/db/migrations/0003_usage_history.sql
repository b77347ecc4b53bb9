-- Usage history (GET /v1/usage) sums one user's charges over a range of days. The index on
-- (user_id, created_at) now carries the columns that are summed and grouped by, so the sums read the
-- index alone (an index-only scan) instead of visiting one table page per charge. Drizzle's index
-- builder cannot write INCLUDE; the schema keeps declaring the key columns under the same name.
DROP INDEX IF EXISTS "credit_spends_user_created_idx";--> statement-breakpoint
CREATE INDEX "credit_spends_user_created_idx" ON "credit_spends" USING btree ("user_id","created_at") INCLUDE ("amount","quantity","feature","api_key_id");
