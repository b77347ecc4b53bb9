// Migration 0022 on a database the previous schema made and filled, as the previous code wrote it:
// auto top-up attempts paid, cancelled with and without an invoice, declined, given up, still
// processing and awaiting authentication. After it every row is as it was, and an attempt the
// previous code settled with an invoice (it voided a cancelled or declined attempt's invoice as it
// settled it; a paid one's is paid) has its invoice closed when it was settled, so the upgrade does
// not make cancelled charges count against the monthly limit (decision 032, addendum). Attempts on
// which a payment may still land keep their invoice open. On PGlite, and on PostgreSQL in a scratch
// database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { fillTeamOfTwo, migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import type { Db } from "./types.ts";

// Relative to the real clock: the migration compares with the database's now().
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const HOUR = 3_600_000;
const NOW = ago(0);
const MADE = ago(2 * HOUR);
const SETTLED = ago(HOUR);
const TOUCHED = ago(HOUR / 2);
const DAYS_AGO = ago(72 * HOUR);

interface OldAttempt {
  id: string;
  status: string;
  invoice: string | null;
  settledAt: string | null;
  sentAt?: string;
  payUrl?: string;
  declineCode?: string;
  detail?: string;
  touched?: string;
}

/** As the code before 0022 wrote them (runner.ts, settle.ts): one of each way an attempt ends or waits. */
const OLD_ATTEMPTS: OldAttempt[] = [
  { id: "paid", status: "paid", invoice: "in_paid", settledAt: SETTLED, sentAt: MADE },
  {
    id: "cancelled_with_invoice",
    status: "cancelled",
    invoice: "in_cancelled",
    settledAt: SETTLED,
    detail: "Cancelled: auto top-up was turned off before this payment was made.",
  },
  // Cancelled three days ago: no instance of the previous code can still be paying it.
  { id: "cancelled_days_ago", status: "cancelled", invoice: "in_days", settledAt: DAYS_AGO },
  // Settled by a version that wrote no settling time: closed when it was last touched.
  { id: "cancelled_unsettled", status: "cancelled", invoice: "in_old", settledAt: null, touched: DAYS_AGO },
  {
    id: "cancelled_without_invoice",
    status: "cancelled",
    invoice: null,
    settledAt: SETTLED,
    detail: "Cancelled: auto top-up was turned off before this payment was made.",
  },
  {
    id: "failed",
    status: "failed",
    invoice: "in_failed",
    settledAt: SETTLED,
    sentAt: MADE,
    declineCode: "insufficient_funds",
    detail: "Your card has insufficient funds.",
  },
  { id: "failed_without_invoice", status: "failed", invoice: null, settledAt: SETTLED },
  { id: "processing", status: "processing", invoice: "in_processing", settledAt: null, sentAt: MADE },
  { id: "processing_before_invoice", status: "processing", invoice: null, settledAt: null },
  {
    id: "authentication_required",
    status: "authentication_required",
    invoice: "in_auth",
    settledAt: null,
    sentAt: MADE,
    payUrl: "https://pay.test/in_auth",
  },
];

async function fillAsBefore(db: Db) {
  const { team } = await fillTeamOfTwo(db, NOW);
  const ids = new Map(OLD_ATTEMPTS.map((a) => [a.id, randomUUID()]));
  // One open attempt per organisation (a unique index): each attempt is the team's, or its own org's.
  for (const a of OLD_ATTEMPTS) {
    const open = a.status === "processing" || a.status === "authentication_required";
    let orgId = team;
    if (open && a.id !== "processing") {
      orgId = randomUUID();
      await db.execute(sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
        values (${orgId}, ${a.id}, ${`${a.id}@example.com`}, 'h', true, ${NOW}, ${NOW})`);
    }
    await db.execute(sql`insert into auto_top_up_attempts (id, org_id, status, provider, product_id,
        credits, currency, net, gross, payment_method_id, provider_invoice_id, sent_at, pay_url,
        decline_code, detail, created_at, settled_at, updated_at)
      values (${ids.get(a.id)}, ${orgId}, ${a.status}, 'stripe', 'prod_topup_500', 500, 'eur', 5000,
        5950, 'pm_1', ${a.invoice}, ${a.sentAt ?? null}, ${a.payUrl ?? null}, ${a.declineCode ?? null},
        ${a.detail ?? null}, ${MADE}, ${a.settledAt}, ${a.touched ?? TOUCHED})`);
  }
  return ids;
}

type Row = { id: string } & Record<string, unknown>;
const attempts = async (db: Db, columns = sql`*`) =>
  rowsOf<Row>(await db.execute(sql`select ${columns} from auto_top_up_attempts order by id`));

describe.each(TEST_DATABASES)("migration 0022: when an auto top-up's invoice was closed (%s)", (kind) => {
  const before = migrationsBefore("0022_auto_top_up_invoice_closed");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("keeps every attempt, and closes the invoices of those the previous code settled", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const ids = await fillAsBefore(db.handle.db);
      const were = await attempts(db.handle.db);
      expect(were).toHaveLength(OLD_ATTEMPTS.length);

      await db.migrate(MIGRATIONS_FOLDER);
      const after = await attempts(db.handle.db);
      expect(after.map(({ invoice_closed_at: _closed, ...rest }) => rest)).toEqual(were);

      const closedAt = new Map(
        rowsOf<{ id: string; closed: string | null }>(
          await db.handle.db.execute(
            sql`select id, to_char(invoice_closed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as closed
              from auto_top_up_attempts`,
          ),
        ).map((r) => [r.id, r.closed]),
      );
      const closed = (name: string) => closedAt.get(ids.get(name) as string);
      expect(Object.fromEntries(OLD_ATTEMPTS.map((a) => [a.id, closed(a.id)]))).toEqual({
        paid: SETTLED,
        // Cancelled within the day: an instance of the previous code may still be paying it (a
        // rolling upgrade); the sweep voids and reads it again.
        cancelled_with_invoice: null,
        cancelled_days_ago: DAYS_AGO,
        cancelled_unsettled: DAYS_AGO,
        // No invoice: nothing could land on it, and nothing to close.
        cancelled_without_invoice: null,
        failed: SETTLED,
        failed_without_invoice: null,
        // A payment may still land on these: their invoice stays open.
        processing: null,
        processing_before_invoice: null,
        authentication_required: null,
      });
    } finally {
      await db.close();
    }
  });
});
