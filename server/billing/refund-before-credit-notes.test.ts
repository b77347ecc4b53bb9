// A refund made before credit notes existed (migration 0007) has none: the ledger's refund fact
// (credit_adjustments, "refund:<charge>:<amount refunded so far>", since 0004) is what says we
// refunded it. On a database the previous schema made and filled as the code of that time wrote it,
// then migrated to today's: a pack refunded €10 of €59.50 without a credit note, then a dispute of
// it lost with today's code. The customer's invoice and the console's payments give the bank €49.50
// (taken_back), not the whole €59.50 as if we had refunded nothing. On PGlite, and on PostgreSQL in
// a scratch database when TEST_DATABASE_URL is set.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { MIGRATIONS_FOLDER } from "../db/migrate.ts";
import { type InvoiceRow, invoices } from "../db/schema/index.ts";
import { customerPayments } from "../operations/customer-views.ts";
import { migrationsBefore, scratchDatabase } from "../testing/migrations.ts";
import { billingReads } from "./reads.ts";
import { applyDispute } from "./reversals.ts";

const NOW = "2026-11-20T10:00:00.000Z";
const SELLER = JSON.stringify({ name: "GenAI Studio GmbH", country: "DE", vatId: "DE123456789" });
const BUYER = JSON.stringify({ name: "Cora", country: "DE", vatId: null });

describe.each(TEST_DATABASES)("a refund from before credit notes, then a lost dispute (%s)", (kind) => {
  const before = migrationsBefore("0007_operations");
  afterAll(() => rmSync(before, { recursive: true, force: true }));

  it("the bank took back what the refund had not given back", async () => {
    const db = await scratchDatabase(kind);
    try {
      await db.migrate(before);
      const user = randomUUID();
      const grant = randomUUID();
      const invoice = randomUUID();
      const { db: d } = db.handle;
      // As the code of 0004 to 0006 wrote a 500-credit pack (€50 + €9.50 VAT) refunded €10 by
      // charge.refunded: the invoice's refunded amount, the share of credits taken back (84,033
      // milli-credits of 500,000) and the refund fact, and no credit note (there was none to write).
      await d.execute(sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
        values (${user}, 'cora', 'cora@example.com', 'h', true, ${NOW}, ${NOW})`);
      await d.execute(sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, expires_at, source, fulfilment_key, payment_reference)
        values (${grant}, ${user}, 'topup', 500000, 415967, ${NOW}, null, 'Top-up 500', 'topup:pi_old', 'pi_old')`);
      await d.execute(sql`insert into invoices (id, user_id, fulfilment_key, provider, kind, status, number, series, sequence,
          issued_at, description, currency, net, tax, total, refunded, tax_treatment, tax_rate_basis_points,
          seller, buyer, provider_invoice_id, payment_reference, created_at, updated_at)
        values (${invoice}, ${user}, 'topup:pi_old', 'local', 'topup', 'paid', 'INV-2026-000001', 'INV-2026', 1,
          ${NOW}, '500 credits', 'eur', 5000, 950, 5950, 1000, 'domestic', 1900,
          ${SELLER}::jsonb, ${BUYER}::jsonb, null, 'pi_old', ${NOW}, ${NOW})`);
      await d.execute(sql`insert into credit_adjustments (id, user_id, grant_id, kind, amount, reference, created_at)
        values (${randomUUID()}, ${user}, ${grant}, 'refund', 84033, 'refund:ch_old:1000', ${NOW})`);

      await db.migrate(MIGRATIONS_FOLDER);
      const now = new Date("2026-12-01T10:00:00Z");
      for (const phase of ["created", "closed"] as const)
        await d.transaction(async (tx) => {
          const [row] = (await tx.select().from(invoices).where(eq(invoices.id, invoice))) as [InvoiceRow];
          await applyDispute(tx, row, { disputeId: "du_old", phase, won: false }, now, "https://portal.test");
        });

      const read = await billingReads(d).invoice(user, invoice);
      expect(read).toMatchObject({ status: "dispute_lost", refunded: 5950, taken_back: 4950 });
      const [payment] = await customerPayments(d, user);
      expect(payment).toMatchObject({
        status: "dispute_lost",
        refunded: 5950,
        taken_back: 4950,
        credit_notes: [],
      });
    } finally {
      await db.close();
    }
  }, 120_000); // a fresh PGlite runs initdb: seconds, more on a busy machine
});
