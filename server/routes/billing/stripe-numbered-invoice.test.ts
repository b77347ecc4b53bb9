// An invoice numbered by Stripe: its number arrives with Stripe's invoice document
// (provider_invoice_documents) and is the one on the page and PDF the customer opens. Every place
// that names the invoice names that number (billing/invoice-number.ts): the billing history and the
// invoice, a credit note's "refers to", the dispute hold's mail, its audit entry and the portal's
// alert, and the console's payments and ledger. Stripe's invoices carry no number of ours; a row
// that has one besides (`ours`) still goes by the document's, as the customer's page does.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { AdminLedgerEntry } from "../../../contract/admin.ts";
import type { Invoice, InvoiceSummary } from "../../../contract/invoices.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { invoices, providerInvoiceDocuments } from "../../db/schema/index.ts";
import { disputeEvent } from "../../payments/local/event-builders.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { adminCall, adminGet, auditRowsAbout, customerPayments, staffMember } from "../../testing/admin.ts";
import { consumeRequest, createKey, serviceKey } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { me, openTopUpCheckout, payAndSettle, sendWebhook, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const STRIPES = "7D3F0A1B-0004";

describe.each(TEST_DATABASES)(
  "an invoice numbered by Stripe is named by that number everywhere (%s)",
  (kind) => {
    const ctx = useTestApp(kind, { limits: NO_LIMITS });

    const dispute = async (paymentIntentId: string, type: "created" | "closed", status: string) => {
      const created = Math.floor(ctx.t.clock.now().getTime() / 1000);
      const event = disputeEvent({ eventId: newStripeId("evt"), created }, type, {
        id: "dp_numbered",
        chargeId: "ch_numbered",
        paymentIntentId,
        amount: 4950,
        currency: "eur",
        status: status as "needs_response",
        created,
      });
      expect((await sendWebhook(ctx.t, event)).status).toBe(200);
      await ctx.t.tasks.idle();
      ctx.t.clock.advance(1000);
    };

    for (const ours of [null, "INV-2026-000099"])
      it(`the invoice, its credit note, the hold's mail, audit entry and alert, the console (ours: ${ours})`, {
        timeout: 60_000,
      }, async () => {
        const name = ours ? "nbours" : "nbstripe";
        const cora = await verifiedUser(ctx.t, name);
        const ada = await staffMember(ctx.t, `${name}ada`, "admin");
        await subscribe(ctx.t, cora.accessToken, "A");
        await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, cora.accessToken, "500"));
        const [pack] = await ctx.t.deps.db
          .select()
          .from(invoices)
          .where(and(eq(invoices.userId, cora.id), eq(invoices.kind, "topup")));
        const paymentIntentId = pack?.paymentReference;
        if (!pack || !paymentIntentId) throw new Error("no pack");
        // Stripe's invoice and its document with Stripe's number.
        await ctx.t.deps.db
          .update(invoices)
          .set({ number: ours, providerInvoiceId: "in_numbered" })
          .where(eq(invoices.id, pack.id));
        await ctx.t.deps.db
          .insert(providerInvoiceDocuments)
          .values({ invoiceId: "in_numbered", number: STRIPES, updatedAt: ctx.t.clock.now() });

        // What the customer's invoice shows.
        const page = await getJson(ctx.t.app, `/v1/billing/invoices/${pack.id}`, cora.accessToken);
        expect(((await page.json()) as Invoice).number).toBe(STRIPES);

        // Some of the pack's credits spent (past the plan's 1,000), then €10 of it refunded.
        const key = await createKey(ctx.t, cora.accessToken);
        const spend = {
          api_key_id: key.id,
          feature: "comic",
          people: "one",
          quantity: 201,
          idempotency_key: "j",
        };
        expect((await consumeRequest(ctx.t, await serviceKey(ctx.t), spend)).status).toBe(200);
        const refund = await adminCall(ctx.t, `/v1/admin/payments/${pack.id}/refund`, ada.accessToken, {
          amount: 1000,
          reason: "Goodwill",
          idempotency_key: `${name}-1`,
        });
        expect(refund.status, await refund.clone().text()).toBe(202);
        await ctx.t.local.runJob();
        await ctx.t.tasks.idle();
        ctx.t.clock.advance(1000);
        const history = await getJson(ctx.t.app, "/v1/billing/invoices", cora.accessToken);
        const note = ((await history.json()) as { data: InvoiceSummary[] }).data.find(
          (r) => r.document === "credit_note",
        );
        expect(note?.refers_to).toBe(STRIPES);
        expect(note?.description).toBe(`Refund of ${STRIPES}: ${pack.description}`);

        await dispute(paymentIntentId, "created", "needs_response");
        await dispute(paymentIntentId, "closed", "lost");

        const [mail] = (await ctx.t.mails()).filter(
          (m) => m.subject.includes("on hold") && m.to.includes(cora.email),
        );
        expect(mail?.text.replace(/\s+/g, " ")).toContain(`for invoice ${STRIPES} after a dispute`);
        const [hold] = (await auditRowsAbout(ctx.t, cora.id)).filter(
          (r) => r.action === "account.dispute_hold",
        );
        expect(hold?.details).toMatchObject({ invoice_id: pack.id, invoice_number: STRIPES });
        const alert = (await me(ctx.t, cora.accessToken)) as { dispute_hold_invoice?: { number: string } };
        expect(alert.dispute_hold_invoice?.number).toBe(STRIPES);

        const [payment] = await customerPayments(ctx.t, cora.id, ada.accessToken);
        expect(payment?.invoice_number).toBe(STRIPES);
        const lines = (
          await adminGet<{ data: AdminLedgerEntry[] }>(
            ctx.t,
            `/v1/admin/customers/${cora.id}/ledger`,
            ada.accessToken,
          )
        ).data.filter((l) => l.kind === "refund" || l.kind.startsWith("dispute"));
        expect(lines.map((l) => l.description)).toEqual([
          `Dispute lost: held and unspent credits dropped (${STRIPES})`,
          `Held while the payment is disputed (${STRIPES})`,
          `Payment refunded (${STRIPES}; credit note ${payment?.credit_notes[0]?.number})`,
        ]);
      });
  },
);
