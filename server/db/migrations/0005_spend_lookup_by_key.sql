-- The unique index on a spend's (user, idempotency key) now begins with the key: the metering batch
-- looks earlier spends up by key alone, so that no other index of credit_spends can serve that
-- lookup (decision 012). Made before the old one goes, so the rule holds throughout. IF NOT EXISTS:
-- on a large table an operator builds it first with CREATE UNIQUE INDEX CONCURRENTLY (README).
CREATE UNIQUE INDEX IF NOT EXISTS "credit_spends_idempotency_key_user" ON "credit_spends" USING btree ("idempotency_key","user_id");--> statement-breakpoint
DROP INDEX IF EXISTS "credit_spends_user_idempotency_key";
