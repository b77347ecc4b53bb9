// The local checkout's pages for auto top-up (AUTO-TOP-UP.md), through the app as a browser uses
// them: the card-setup page (/_checkout/setup/{id}) with its authentication step and errors, and
// an invoice's payment page (/_checkout/invoice/{id}) in each of its states.
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { localPaymentMethods } from "../../db/schema/index.ts";
import { escapeHtml } from "../../mail/templates.ts";
import { CARD_DECLINED_MESSAGE, SETUP_CARDS_HINT } from "../../payments/local/cards.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  CARD,
  CONSENT,
  chargeFor,
  giveBillingDetails,
  openSetup,
  queuedEvents,
  saveCard,
} from "../../testing/local-auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_SELLER } from "../../testing/test-app.ts";
import { INVOICE_TEXT } from "./invoice-page.ts";
import { SETUP_TEXT } from "./setup-page.ts";

const DAY_MS = 86_400_000;
const SAVED = "https://portal.test/profile/billing?card=saved";
const CANCELLED = "https://portal.test/profile/billing?card=cancelled";

describe.each(TEST_DATABASES)("the local checkout's auto top-up pages (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const db = () => ctx.t.deps.db;

  const post = (path: string, fields: Record<string, string>) =>
    ctx.t.app.request(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });

  async function setupPath() {
    const ann = await verifiedUser(ctx.t, "ann");
    const { url } = await openSetup(ctx.t, ann.id, ann.id);
    return { orgId: ann.id, path: new URL(url).pathname };
  }

  describe("the card-setup page", () => {
    it("names the seller, shows the consent text, a card field, Save and Cancel", async () => {
      const { path } = await setupPath();
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      const html = await res.text();
      expect(html).toContain(`<p class="hint" id="seller">${TEST_SELLER.name}</p>`);
      expect(html).toContain(`<p class="note" id="consent">${CONSENT}</p>`);
      expect(html).toContain('<label for="card-number">Card number</label>');
      expect(html).toContain('aria-describedby="consent"');
      expect(html).toContain(`<form method="post" action="${path}">`);
      expect(html).toContain(`<button type="submit">${SETUP_TEXT.save}</button>`);
      expect(html).toContain(`<a class="cancel" href="${escapeHtml(CANCELLED)}">Cancel</a>`);
      expect(html).toContain(escapeHtml(SETUP_CARDS_HINT));
    });

    it.each([CARD.pays, CARD.declinesCharges])("saves %s and goes back to Billing", async (card) => {
      const { path } = await setupPath();
      const res = await post(path, { card_number: card });
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe(SAVED);
      await ctx.t.tasks.idle();
      expect(await db().select().from(localPaymentMethods)).toHaveLength(1);
      expect((await queuedEvents(db())).map((e) => e.type).sort()).toEqual([
        "checkout.session.completed",
        "setup_intent.succeeded",
      ]);
    });

    it.each([CARD.authThenPays, CARD.alwaysAuth, CARD.insufficientFunds])(
      "asks %s for authentication first, then saves it",
      async (card) => {
        const { path } = await setupPath();
        const asked = await post(path, { card_number: card });
        expect(asked.status).toBe(200);
        const html = await asked.text();
        expect(html).toContain(`<h1>${SETUP_TEXT.authTitle}</h1>`);
        expect(html).toContain(`action="${path}/authenticate"`);
        expect(html).toContain(
          `<input type="hidden" name="card_number" value="${card.replaceAll(" ", "")}">`,
        );
        expect(html).toContain(`name="outcome" value="complete">${SETUP_TEXT.complete}</button>`);
        expect(html).toContain(`name="outcome" value="fail" class="secondary">${SETUP_TEXT.fail}</button>`);
        expect(await db().select().from(localPaymentMethods)).toEqual([]);

        const done = await post(`${path}/authenticate`, {
          card_number: card.replaceAll(" ", ""),
          outcome: "complete",
        });
        expect(done.status).toBe(303);
        expect(done.headers.get("Location")).toBe(SAVED);
        const [pm] = await db().select().from(localPaymentMethods);
        expect(pm?.last4).toBe(card.slice(-4));
      },
    );

    it("saves nothing when authentication fails, and says so beside the field", async () => {
      const { path } = await setupPath();
      const res = await post(`${path}/authenticate`, { card_number: "4000002500003155", outcome: "fail" });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(
        `<p class="error" id="card-error" role="alert">${escapeHtml(SETUP_TEXT.authFailed)}</p>`,
      );
      expect(html).toContain('aria-describedby="card-error consent" aria-invalid="true"');
      expect(await db().select().from(localPaymentMethods)).toEqual([]);
      expect(await queuedEvents(db())).toEqual([]);
    });

    it.each([
      { card: CARD.declined, message: CARD_DECLINED_MESSAGE },
      { card: "5555 5555 5555 4444", message: "This test page only accepts Stripe's test cards." },
    ])("refuses $card with its message beside the field", async ({ card, message }) => {
      const { path } = await setupPath();
      const res = await post(path, { card_number: card });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(`<p class="error" id="card-error" role="alert">${escapeHtml(message)}`);
      expect(html).toContain('aria-invalid="true"');
      expect(await db().select().from(localPaymentMethods)).toEqual([]);
    });

    it("says clearly when the page is unknown, expired, or already used", async () => {
      const { path, orgId } = await setupPath();
      const unknown = await ctx.t.app.request("/_checkout/setup/cs_test_nothing");
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain(SETUP_TEXT.notFound[1]);

      expect((await post(path, { card_number: CARD.pays })).status).toBe(303);
      const used = await ctx.t.app.request(path);
      expect(used.status).toBe(409);
      expect(await used.text()).toContain(SETUP_TEXT.complete409[1]);
      const usedAgain = await post(path, { card_number: CARD.pays });
      expect(usedAgain.status).toBe(409);

      const late = new URL((await openSetup(ctx.t, orgId, orgId)).url).pathname;
      ctx.t.clock.advance(DAY_MS);
      const expired = await ctx.t.app.request(late);
      expect(expired.status).toBe(410);
      expect(await expired.text()).toContain(SETUP_TEXT.expired[1]);
      expect((await post(late, { card_number: CARD.pays })).status).toBe(410);
      expect(
        (
          await post(`${late}/authenticate`, {
            card_number: CARD.authThenPays.replaceAll(" ", ""),
            outcome: "complete",
          })
        ).status,
      ).toBe(410);
      expect(await db().select().from(localPaymentMethods)).toHaveLength(1);
    });
  });

  describe("an auto top-up invoice's payment page", () => {
    /** An invoice charged off-session to `card`: its page's path and the charge. */
    async function chargedInvoice(card: string) {
      const ann = await verifiedUser(ctx.t, "ann");
      const pm = await saveCard(ctx.t, ann.id, card);
      await giveBillingDetails(db(), ann.id, { name: "Erika Mustermann", country: "DE" });
      const charge = await chargeFor(ctx.t, ann.id, pm);
      const provider = ctx.t.local.provider;
      const { invoiceId } = await provider.createAutoTopUpInvoice(db(), charge);
      await provider.payAutoTopUpInvoice(db(), charge, invoiceId);
      return { path: `/_checkout/invoice/${invoiceId}`, invoiceId, charge };
    }

    const paidEvents = async () => queuedEvents(db(), "invoice.paid");

    it("shows the amount with its VAT and pays on 'Confirm payment', once", async () => {
      const { path, invoiceId, charge } = await chargedInvoice(CARD.alwaysAuth);
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain(`<p class="hint" id="seller">${TEST_SELLER.name}</p>`);
      expect(html).toContain("<p>Auto top-up: 500 credits</p>");
      const vat = Math.round(charge.amount * 0.19);
      const euros = (cents: number) => `€${(cents / 100).toFixed(2)}`;
      expect(html).toContain(`<tr><th scope="row">Net</th><td>${euros(charge.amount)}</td></tr>`);
      expect(html).toContain(`<tr><th scope="row">VAT (19 %)</th><td>${euros(vat)}</td></tr>`);
      expect(html).toContain(
        `<tr class="total"><th scope="row">Total</th><td>${euros(charge.amount + vat)}</td></tr>`,
      );
      expect(html).toContain(`<form method="post" action="${path}">`);
      expect(html).toContain(`<button type="submit">${INVOICE_TEXT.confirm}</button>`);
      expect(await paidEvents()).toEqual([]);

      const paid = await post(path, {});
      expect(paid.status).toBe(303);
      expect(paid.headers.get("Location")).toBe(path);
      const after = await ctx.t.app.request(path);
      expect(after.status).toBe(200);
      const afterHtml = await after.text();
      expect(afterHtml).toContain(`<p id="payment-state" role="status">${INVOICE_TEXT.paid}</p>`);
      expect(afterHtml).toContain(
        '<a class="cancel" href="https://portal.test/profile/billing">Back to Billing</a>',
      );
      expect(afterHtml).not.toContain(INVOICE_TEXT.confirm);

      // Confirming again (a second tab) pays nothing more.
      expect((await post(path, {})).status).toBe(200);
      const events = await paidEvents();
      expect(events).toHaveLength(1);
      expect(events[0]?.data.object).toMatchObject({
        id: invoiceId,
        status: "paid",
        metadata: { auto_top_up_attempt_id: charge.attemptId },
      });
      expect(await ctx.t.local.provider.readAutoTopUpInvoice(db(), invoiceId)).toMatchObject({
        status: "paid",
      });
    });

    it("says a voided payment is no longer needed, and takes no payment", async () => {
      const { path, invoiceId, charge } = await chargedInvoice(CARD.alwaysAuth);
      await ctx.t.local.provider.voidAutoTopUpInvoice(db(), invoiceId, charge.attemptId);
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(INVOICE_TEXT.void);
      const posted = await post(path, {});
      expect(await posted.text()).toContain(INVOICE_TEXT.void);
      expect(await paidEvents()).toEqual([]);
    });

    it("expires 7 days after the invoice was made", async () => {
      const { path } = await chargedInvoice(CARD.alwaysAuth);
      ctx.t.clock.advance(7 * DAY_MS - 1_000);
      expect((await ctx.t.app.request(path)).status).toBe(200);
      ctx.t.clock.advance(1_000);
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(410);
      expect(await res.text()).toContain(INVOICE_TEXT.expired);
      expect((await post(path, {})).status).toBe(410);
      expect(await paidEvents()).toEqual([]);
    });

    it("shows a paid invoice as paid", async () => {
      const { path } = await chargedInvoice(CARD.pays);
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(INVOICE_TEXT.paid);
    });

    it("takes no payment for a declined invoice, nor for one that does not exist", async () => {
      const { path } = await chargedInvoice(CARD.insufficientFunds);
      const declined = await post(path, {});
      expect(declined.status).toBe(409);
      expect(await declined.text()).toContain(INVOICE_TEXT.unavailable);
      expect(await paidEvents()).toEqual([]);
      const unknown = await ctx.t.app.request("/_checkout/invoice/in_nothing");
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain(INVOICE_TEXT.notFound);
    });
  });
});
