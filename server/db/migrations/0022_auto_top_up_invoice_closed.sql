ALTER TABLE "auto_top_up_attempts" ADD COLUMN "invoice_closed_at" timestamp with time zone;
-- No backfill: a cancelled attempt of this month whose invoice is not yet seen void or paid counts
-- against the monthly limit until the sweep has voided and read it again (minutes after the start);
-- older ones count in no month that is still open.
