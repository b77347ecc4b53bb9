ALTER TABLE "auto_top_up_attempts" ADD COLUMN "invoice_closed_at" timestamp with time zone;--> statement-breakpoint
-- Attempts settled before this column, with an invoice, are closed when they were settled: the code
-- of that time voided the invoice of every cancelled or declined attempt as it settled it, and a
-- paid one's invoice is paid. Left open, this month's cancelled ones would count against the
-- monthly limit until the sweep had voided and read them again (50 a run), pausing (and mailing)
-- customers whose charges were cancelled (decision 032, addendum). Processing attempts and those
-- awaiting authentication keep theirs open: a payment may still land on them. So do attempts
-- cancelled in the last 24 hours: while instances of the previous code still run beside this one
-- (a rolling upgrade), one of them may be paying such an invoice, the race this change closes; the
-- sweep voids and reads those again, and a pause their room caused ends when the void lands.
UPDATE "auto_top_up_attempts" SET "invoice_closed_at" = coalesce("settled_at", "updated_at")
  WHERE "provider_invoice_id" IS NOT NULL AND (
    "status" IN ('paid', 'failed')
    OR ("status" = 'cancelled' AND coalesce("settled_at", "updated_at") < now() - interval '24 hours')
  );
