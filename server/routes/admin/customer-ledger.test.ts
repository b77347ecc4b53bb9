// The console's ledger names a refunded or disputed payment as the operator knows it, by the
// invoice number the payments list beside it shows (and a refund by its credit note), never by
// the provider's charge or dispute id and a cumulative amount in minor units, which is what the
// adjustment stores. Through the API, on PGlite and PostgreSQL.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { AdminLedgerEntry } from "../../../contract/admin.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { checkoutSessions, invoices, providerInvoiceDocuments } from "../../db/schema/index.ts";
import { berlinDateOf } from "../../domain/berlin-time.ts";
import { disputeEvent } from "../../payments/local/event-builders.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { adminCall, adminGet, customerPayments, staffMember } from "../../testing/admin.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { openTopUpCheckout, payAndSettle, sendWebhook, subscribe } from "../../testing/billing.ts";
import { call, createTeam } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const PAYMENT_LINES = new Set(["refund", "dispute_freeze", "dispute_won", "dispute_lost"]);

describe.each(TEST_DATABASES)("the console's ledger names the payment (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** A Tier A subscriber who bought a 500-credit pack, the admin, and the pack as the payments list shows it. */
  const withTopUp = async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "A");
    const path = await openTopUpCheckout(ctx.t, cora.accessToken, "500");
    await payAndSettle(ctx.t, path);
    const [session] = await ctx.t.deps.db
      .select({ paymentIntentId: checkoutSessions.paymentIntentId })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, path.split("/").pop() ?? ""));
    const payments = async () => await customerPayments(ctx.t, cora.id, ada.accessToken);
    const pack = (await payments()).find((p) => p.description.includes("500"));
    if (!pack?.invoice_number || !session?.paymentIntentId) throw new Error("no top-up");
    return { cora, ada, pack, paymentIntentId: session.paymentIntentId, payments };
  };

  const paymentLines = async (customerId: string, token: string) =>
    (
      await adminGet<{ data: AdminLedgerEntry[] }>(ctx.t, `/v1/admin/customers/${customerId}/ledger`, token)
    ).data
      .filter((l) => PAYMENT_LINES.has(l.kind))
      .map((l) => [l.kind, l.description]);

  const refund = async (token: string, paymentId: string, body: Record<string, unknown>) => {
    const res = await adminCall(ctx.t, `/v1/admin/payments/${paymentId}/refund`, token, {
      reason: "Bought by mistake",
      idempotency_key: `r-${Math.random()}`,
      ...body,
    });
    expect(res.status).toBe(202);
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();
    ctx.t.clock.advance(1000);
  };

  const dispute = async (
    paymentIntentId: string,
    total: number,
    type: "created" | "closed",
    status: "needs_response" | "won" | "lost",
    id: string,
  ) => {
    const created = Math.floor(ctx.t.clock.now().getTime() / 1000);
    const event = disputeEvent({ eventId: newStripeId("evt"), created }, type, {
      id,
      chargeId: "ch_topup",
      paymentIntentId,
      amount: total,
      currency: "eur",
      status,
      created,
    });
    expect((await sendWebhook(ctx.t, event)).status).toBe(200);
    await ctx.t.tasks.idle();
    ctx.t.clock.advance(1000);
  };

  it("a refund names the invoice and its credit note, as the payments list does", async () => {
    const { cora, ada, pack, payments } = await withTopUp();
    const half = Math.floor(pack.total / 2);
    await refund(ada.accessToken, pack.id, { amount: half });
    await refund(ada.accessToken, pack.id, {});
    const notes = (await payments()).find((p) => p.id === pack.id)?.credit_notes.map((n) => n.number);
    expect(notes).toEqual(["CN-2026-000001", "CN-2026-000002"]);

    const lines = await paymentLines(cora.id, ada.accessToken);
    expect(lines).toEqual([
      ["refund", `Payment refunded (${pack.invoice_number}; credit note CN-2026-000002)`],
      ["refund", `Payment refunded (${pack.invoice_number}; credit note CN-2026-000001)`],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/ch_|re_|refund:|:\d+\)/);
  });

  it("a dispute's lines name the disputed payment's invoice, not the provider's dispute", async () => {
    const { cora, ada, pack, paymentIntentId } = await withTopUp();
    await dispute(paymentIntentId, pack.total, "created", "needs_response", "dp_1");
    await dispute(paymentIntentId, pack.total, "closed", "won", "dp_1");
    await dispute(paymentIntentId, pack.total, "created", "needs_response", "dp_2");
    await dispute(paymentIntentId, pack.total, "closed", "lost", "dp_2");

    const lines = await paymentLines(cora.id, ada.accessToken);
    expect(lines).toEqual([
      ["dispute_lost", `Dispute lost: held and unspent credits dropped (${pack.invoice_number})`],
      ["dispute_freeze", `Held while the payment is disputed (${pack.invoice_number})`],
      ["dispute_won", `Dispute won: held credits released (${pack.invoice_number})`],
      ["dispute_freeze", `Held while the payment is disputed (${pack.invoice_number})`],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/dp_|dispute:/);
  });

  it("without our number: the provider's invoice number, else the payment's description and day, else the grant's day", async () => {
    const { cora, ada, pack } = await withTopUp();
    await refund(ada.accessToken, pack.id, {});
    const { db } = ctx.t.deps;
    const line = async () => (await paymentLines(cora.id, ada.accessToken))[0]?.[1];

    // A Stripe invoice: its number arrives with the provider's document.
    await db
      .update(invoices)
      .set({ number: null, providerInvoiceId: "in_ledger" })
      .where(eq(invoices.id, pack.id));
    expect(await line()).toBe(
      `Payment refunded (${pack.description} of ${berlinDateOf(new Date(pack.issued_at))}; credit note CN-2026-000001)`,
    );
    await db
      .insert(providerInvoiceDocuments)
      .values({ invoiceId: "in_ledger", number: "7D3F0A1B-0004", updatedAt: ctx.t.clock.now() });
    expect(await line()).toBe("Payment refunded (7D3F0A1B-0004; credit note CN-2026-000001)");

    // A grant with no invoice on record (its credit notes go with it).
    await db.delete(invoices).where(eq(invoices.id, pack.id));
    const grantLine = (
      await adminGet<{ data: AdminLedgerEntry[] }>(
        ctx.t,
        `/v1/admin/customers/${cora.id}/ledger`,
        ada.accessToken,
      )
    ).data.find((l) => l.kind === "grant" && l.credits === 500);
    if (!grantLine) throw new Error("no grant of the pack");
    expect(await line()).toBe(
      `Payment refunded (no invoice: credits granted ${berlinDateOf(new Date(grantLine.at))})`,
    );
  });

  it("a deleted organisation's write-off says what it was, not the organisation's and the grant's ids", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const sue = await staffMember(ctx.t, "sue", "support");
    const org = await createTeam(ctx.t, ann);
    const grant = await adminCall(ctx.t, `/v1/admin/orgs/${org.id}/credits`, sue.accessToken, {
      amount: 20,
      reason: "Goodwill for the outage",
      idempotency_key: "org-grant",
    });
    expect(grant.status).toBe(201);
    ctx.t.clock.advance(1000);
    const deleted = await call(ctx.t, "DELETE", `/v1/orgs/${org.id}`, ann.accessToken, {
      confirm_forfeit: true,
    });
    expect(deleted.status).toBe(204);

    const ledger = await adminGet<{ data: AdminLedgerEntry[] }>(
      ctx.t,
      `/v1/admin/orgs/${org.id}/ledger`,
      sue.accessToken,
    );
    expect(ledger.data.find((l) => l.kind === "forfeit")).toMatchObject({
      credits: -20,
      description: "Written off: the organisation was deleted",
    });
  });
});
