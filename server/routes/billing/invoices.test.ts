// VAT at the local checkout and the billing history it leads to, through the API: the details step
// decides the VAT, the payment's webhook events carry it, and every payment becomes an invoice with
// a gap-free number, seller, buyer, VAT and the reverse-charge note; a declined renewal is a failed
// row until a new card pays it.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TIERS, TOP_UPS } from "../../../contract/catalogue.ts";
import type { BillingDetails, Invoice, InvoiceSummary } from "../../../contract/invoices.ts";
import { pdfText } from "../../../tests/fixtures/pdf-text.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { seriesOf } from "../../billing/invoice-rules.ts";
import { billingCustomers, checkoutSessions, vatIdChecks, webhookDeliveries } from "../../db/schema/index.ts";
import { berlinDateOf } from "../../domain/berlin-time.ts";
import { addMonths } from "../../domain/ledger.ts";
import { VAT_ID_MESSAGES } from "../../domain/vat.ts";
import { BUYER_MESSAGES } from "../../payments/local/buyer-details.ts";
import { stripeFixture } from "../../payments/local/stripe-fixtures.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import {
  advanceDays,
  GERMAN_CONSUMER,
  giveDetails,
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  payAt,
  sendWebhook,
  type TestBuyer,
  tokenFor,
} from "../../testing/billing.ts";
import { subscriptionPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL, TEST_SELLER } from "../../testing/test-app.ts";
import { DETAILS_FIRST } from "../checkout/page.ts";

const FRENCH_BUSINESS: TestBuyer = { name: "Exemple SARL", country: "FR", vat_id: "FR 40 303 265 045" };
const AUSTRIAN_CONSUMER: TestBuyer = { name: "Max Muster", country: "AT", vat_id: "" };
const US_BUYER: TestBuyer = { name: "Jane Doe", country: "US", vat_id: "" };

const priceOf = (key: "A" | "B") => TIERS.find((t) => t.key === key)?.unitAmount ?? 0;
const packPrice = TOP_UPS.find((t) => t.key === "500")?.unitAmount ?? 0;
/**
 * The number after `first` for an invoice issued at `at`: the next of the same year's series, or
 * the first of a new year's (a test's month-long clock jump may cross New Year).
 */
const numberAfter = (first: string | null | undefined, at: Date) => {
  const series = seriesOf(at);
  return first?.startsWith(`${series}-`) ? `${series}-000002` : `${series}-000001`;
};
/** The rounding rule: nearest cent, half up. */
const vat = (net: number, percent: number) => Math.floor((net * percent * 100 + 5000) / 10_000);

describe.each(TEST_DATABASES)("VAT, invoices and billing history (%s)", (kind) => {
  const ctx = useTestApp(kind);

  const history = async (token: string) => {
    const res = await getJson(ctx.t.app, "/v1/billing/invoices", token);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: InvoiceSummary[] }).data;
  };
  const invoice = async (token: string, id: string) => {
    const res = await getJson(ctx.t.app, `/v1/billing/invoices/${id}`, token);
    expect(res.status).toBe(200);
    return (await res.json()) as Invoice;
  };
  const series = () => seriesOf(ctx.t.clock.now());

  describe("the hosted page's details step", () => {
    it("shows net, VAT with its rate and the total before Pay, by the buyer's country", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const net = priceOf("B");
      for (const [buyer, label, tax] of [
        [GERMAN_CONSUMER, "VAT (19 %)", vat(net, 19)],
        [AUSTRIAN_CONSUMER, "VAT (20 %)", vat(net, 20)],
        [FRENCH_BUSINESS, "VAT (0 %, reverse charge)", 0],
        [US_BUYER, "VAT (0 %, outside the EU)", 0],
      ] as const) {
        const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "B");
        const res = await giveDetails(ctx.t, path, buyer);
        expect(res.status).toBe(303);
        expect(res.headers.get("location")).toBe(path);
        const html = await (await ctx.t.app.request(path)).text();
        const euros = (cents: number) => `€${(cents / 100).toFixed(2)}`;
        expect(html).toContain(`<tr><th scope="row">Net</th><td>${euros(net)}</td></tr>`);
        expect(html).toContain(`<tr><th scope="row">${label}</th><td>${euros(tax)}</td></tr>`);
        expect(html).toContain(`<td>${euros(net + tax)}</td>`);
        if (buyer === FRENCH_BUSINESS) {
          expect(html).toContain("VAT ID FR40303265045");
          expect(html).toContain("Reverse charge");
        }
      }
    });

    it("says what is wrong next to each field and stores nothing", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "A");
      const cases = [
        [{ name: "", country: "", vat_id: "" }, [BUYER_MESSAGES.nameMissing, BUYER_MESSAGES.countryMissing]],
        [{ name: "Exemple SARL", country: "FR", vat_id: "FR40303265046" }, [VAT_ID_MESSAGES.invalid]],
        [{ name: "Exemple SARL", country: "FR", vat_id: "DE136695976" }, [VAT_ID_MESSAGES.otherCountry]],
        [{ name: "Jane Doe", country: "US", vat_id: "DE136695976" }, [VAT_ID_MESSAGES.outsideEu]],
        [{ name: "x".repeat(201), country: "DE", vat_id: "" }, [BUYER_MESSAGES.nameTooLong]],
      ] as const;
      for (const [buyer, messages] of cases) {
        const res = await giveDetails(ctx.t, path, buyer);
        expect(res.status).toBe(200);
        const html = await res.text();
        for (const message of messages) expect(html).toContain(message.replace("'", "&#39;"));
        expect(html).toContain('aria-invalid="true"');
      }
      const [session] = await ctx.t.deps.db.select().from(checkoutSessions);
      expect(session).toMatchObject({ buyerCountry: null, taxTreatment: null, amountTax: null });
      // Paying before the details are in shows the details step again, and takes nothing.
      const pay = await ctx.t.app.request(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "card_number=4242424242424242",
      });
      expect(pay.status).toBe(200);
      expect(await pay.text()).toContain(DETAILS_FIRST);
      expect((await me(ctx.t, user.accessToken)).subscription.plan).toBe("FREE");
    });

    it("starts the next checkout from the details of the last payment", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        undefined,
        FRENCH_BUSINESS,
      );
      const path = await openTopUpCheckout(ctx.t, user.accessToken, "500");
      const html = await (await ctx.t.app.request(path)).text();
      expect(html).toContain('value="Exemple SARL"');
      expect(html).toContain('<option value="FR" selected>France</option>');
      expect(html).toContain('value="FR40303265045"');
    });
  });

  describe("invoices", () => {
    it("a German consumer's subscription: 19 % charged, stored and on a numbered invoice", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const paidAt = ctx.t.clock.now();
      await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
      // The time of supply: the local provider's first period, a month from the payment, on
      // Berlin's calendar.
      const description = `Tier A monthly subscription, ${berlinDateOf(paidAt)} to ${berlinDateOf(addMonths(paidAt, 1))}`;
      const net = priceOf("A");
      const [row, ...rest] = await history(user.accessToken);
      expect(rest).toEqual([]);
      expect(row).toMatchObject({
        number: `${series()}-000001`,
        kind: "subscription",
        description,
        currency: "eur",
        net,
        tax: vat(net, 19),
        total: net + vat(net, 19),
        refunded: 0,
        tax_rate: 19,
        tax_treatment: "domestic",
        status: "paid",
        invoice_url: null,
        pdf_url: null,
      });
      const full = await invoice(user.accessToken, row?.id ?? "");
      expect(full.seller).toEqual({
        name: TEST_SELLER.name,
        address: TEST_SELLER.address,
        country: "DE",
        vat_id: TEST_SELLER.vatId,
        email: null,
      });
      expect(full.buyer).toEqual({
        name: GERMAN_CONSUMER.name,
        address: null,
        country: "DE",
        vat_id: null,
        email: user.email,
      });
      expect(full.lines).toEqual([{ description, quantity: 1, unit_amount: net, amount: net }]);
      expect(full.note).toBeNull();
      // The details on file are the buyer's, and the card can be changed.
      const details = (await (
        await getJson(ctx.t.app, "/v1/billing/details", user.accessToken)
      ).json()) as BillingDetails;
      expect(details).toEqual({
        details: {
          name: GERMAN_CONSUMER.name,
          country: "DE",
          vat_id: null,
          vat_id_status: null,
          email: null,
          address: null,
        },
        // Nobody gave a billing e-mail: invoices go to the owner.
        billing_email: user.email,
        can_update_payment_method: true,
      });
    });

    it("a French business's top-up: reverse charge, 0 %, the note, and the next number", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
      await payAndSettle(
        ctx.t,
        await openTopUpCheckout(ctx.t, user.accessToken, "500"),
        undefined,
        FRENCH_BUSINESS,
      );
      const [topUp, first] = await history(user.accessToken);
      expect(first?.number).toBe(`${series()}-000001`);
      expect(topUp).toMatchObject({
        number: `${series()}-000002`,
        kind: "topup",
        description: "500 credit pack",
        net: packPrice,
        tax: 0,
        total: packPrice,
        tax_rate: 0,
        tax_treatment: "reverse_charge",
        status: "paid",
      });
      const full = await invoice(user.accessToken, topUp?.id ?? "");
      expect(full.buyer).toMatchObject({ name: "Exemple SARL", country: "FR", vat_id: "FR40303265045" });
      expect(full.note).toMatch(/^Reverse charge/);
    });

    it("a buyer outside the EU pays no VAT and the invoice says why", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "B"),
        undefined,
        US_BUYER,
      );
      const [row] = await history(user.accessToken);
      expect(row).toMatchObject({ tax: 0, total: priceOf("B"), tax_rate: 0, tax_treatment: "outside_eu" });
      expect((await invoice(user.accessToken, row?.id ?? "")).note).toMatch(/outside the EU/);
    });

    it("a redelivered webhook makes no second invoice and uses no number", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, user.accessToken, "A"));
      const deliveries = await ctx.t.deps.db.select().from(webhookDeliveries);
      expect(deliveries.length).toBeGreaterThan(0);
      for (const d of deliveries) expect((await sendWebhook(ctx.t, d.payload)).status).toBe(200);
      expect(await history(user.accessToken)).toHaveLength(1);
      await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
      expect((await history(user.accessToken)).map((r) => r.number)).toEqual([
        `${series()}-000002`,
        `${series()}-000001`,
      ]);
    });

    it("a subscription's first invoice comes with its invoice event, with the provider's period", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const paidAt = ctx.t.clock.now();
      const purchase = subscriptionPurchase(user.id, paidAt, "A");
      // The checkout's event grants the month and starts the plan, but carries no period: no invoice.
      expect((await sendWebhook(ctx.t, purchase.events.checkout())).status).toBe(200);
      expect((await me(ctx.t, user.accessToken)).subscription.plan).toBe("Tier A");
      expect(await history(user.accessToken)).toEqual([]);
      // Stripe's period, a day shorter than a month from the payment: the invoice gives it as sent.
      const end = new Date(addMonths(paidAt, 1).getTime() - 86_400_000);
      expect((await sendWebhook(ctx.t, purchase.events.invoice(end))).status).toBe(200);
      expect((await sendWebhook(ctx.t, purchase.events.checkout())).status).toBe(200);
      const rows = await history(user.accessToken);
      expect(rows.map((r) => [r.number, r.description])).toEqual([
        [
          `${series()}-000001`,
          `Tier A monthly subscription, ${berlinDateOf(paidAt)} to ${berlinDateOf(end)}`,
        ],
      ]);
    });

    it("a renewal is invoiced from the details on file, at that day's rate", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        undefined,
        AUSTRIAN_CONSUMER,
      );
      await advanceDays(ctx.t, 32);
      const token = await tokenFor(ctx.t, "ann");
      const [renewal, first] = await history(token);
      expect(first?.kind).toBe("subscription");
      expect(renewal).toMatchObject({
        kind: "renewal",
        status: "paid",
        tax_rate: 20,
        tax: vat(priceOf("A"), 20),
        tax_treatment: "eu_consumer",
      });
      expect(renewal?.description).toMatch(
        /^Tier A monthly subscription, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/,
      );
      expect(renewal?.number).toBe(numberAfter(first?.number, new Date(renewal?.date ?? 0)));
    });

    it("a VAT ID that Stripe's check did not confirm is charged VAT at the next renewal, and still named", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        undefined,
        FRENCH_BUSINESS,
      );
      const [customer] = await ctx.t.deps.db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.userId, user.id));
      // The local checkout confirmed the well-formed ID it collected: the first payment is reverse charged.
      expect(customer).toMatchObject({ vatId: "FR40303265045" });
      expect(await ctx.t.deps.db.select().from(vatIdChecks)).toMatchObject([
        { customerId: customer?.customerId, vatId: "FR40303265045", status: "verified" },
      ]);
      const checked = await sendWebhook(ctx.t, {
        id: "evt_tax_id_1",
        object: "event",
        type: "customer.tax_id.updated",
        created: Math.floor(ctx.t.clock.now().getTime() / 1000),
        livemode: false,
        data: {
          object: {
            ...stripeFixture("tax_id"),
            customer: customer?.customerId,
            country: "FR",
            value: "FR40303265045",
            verification: { status: "unverified", verified_address: null, verified_name: null },
          },
        },
      });
      expect(checked.status).toBe(200);
      await advanceDays(ctx.t, 32);
      const token = await tokenFor(ctx.t, "ann");
      const [renewal, first] = await history(token);
      expect(first).toMatchObject({ kind: "subscription", tax: 0, tax_treatment: "reverse_charge" });
      expect(renewal).toMatchObject({
        kind: "renewal",
        status: "paid",
        tax_rate: 20,
        tax: vat(priceOf("A"), 20),
        tax_treatment: "eu_consumer",
      });
      const full = await invoice(token, renewal?.id ?? "");
      expect(full.buyer).toMatchObject({ name: "Exemple SARL", country: "FR", vat_id: "FR40303265045" });
      expect(full.note).toBeNull();
      // The renewal carried the same VAT ID: its state stays as Stripe's check left it.
      const details = (await (
        await getJson(ctx.t.app, "/v1/billing/details", token)
      ).json()) as BillingDetails;
      expect(details.details).toMatchObject({ vat_id: "FR40303265045", vat_id_status: "unverified" });
    });

    it("another user's invoice, an unknown id and a malformed id all answer 404", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const bob = await verifiedUser(ctx.t, "bob");
      await payAndSettle(ctx.t, await openSubscriptionCheckout(ctx.t, ann.accessToken, "A"));
      const [row] = await history(ann.accessToken);
      for (const id of [row?.id, "00000000-0000-4000-8000-000000000000", "not-an-id"]) {
        const res = await getJson(ctx.t.app, `/v1/billing/invoices/${id}`, bob.accessToken);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ detail: "Invoice not found" });
      }
      expect(await history(bob.accessToken)).toEqual([]);
      expect((await getJson(ctx.t.app, "/v1/billing/invoices")).status).toBe(401);
    });
  });

  describe("the invoice as a PDF", () => {
    const pdfOf = (id: string, token?: string) => getJson(ctx.t.app, `/v1/billing/invoices/${id}/pdf`, token);

    it("downloads a paid invoice as a PDF named after its number, with what the invoice says", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        undefined,
        FRENCH_BUSINESS,
      );
      const [row] = await history(user.accessToken);
      const res = await pdfOf(row?.id ?? "", user.accessToken);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${row?.number}.pdf"`);
      const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
      for (const shown of [
        `Invoice number: ${row?.number}`,
        TEST_SELLER.name,
        "Exemple SARL",
        "VAT ID FR40303265045",
        "VAT 0 %, reverse charge",
        `Total (EUR) €${(priceOf("A") / 100).toFixed(2)}`,
        "Reverse charge: VAT is to be accounted for by the recipient",
      ]) {
        expect(text).toContain(shown);
      }
    });

    it("refuses a failed payment's row, another user's invoice and a caller without a token", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      await verifiedUser(ctx.t, "bob");
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, ann.accessToken, "A"),
        "4000 0000 0000 0341",
      );
      await advanceDays(ctx.t, 32);
      const token = await tokenFor(ctx.t, "ann");
      const [failed, paid] = await history(token);
      expect(failed?.status).toBe("failed");
      const refused = await pdfOf(failed?.id ?? "", token);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({ detail: "No invoice was issued for a failed payment" });
      const foreign = await pdfOf(paid?.id ?? "", await tokenFor(ctx.t, "bob"));
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toEqual({ detail: "Invoice not found" });
      expect((await pdfOf(paid?.id ?? "")).status).toBe(401);
    });
  });

  describe("a declined renewal and a new card", () => {
    it("shows a failed row; paying with a new card settles it, numbers it and keeps the plan", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const auth = { Authorization: `Bearer ${user.accessToken}` };
      // A free user has no card to change.
      const refused = await postJson(ctx.t.app, "/v1/billing-portal-session", {}, auth);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        detail: "You have no subscription, so there is no payment method to update",
      });
      await payAndSettle(
        ctx.t,
        await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
        "4000 0000 0000 0341",
      );
      await advanceDays(ctx.t, 32);
      const token = await tokenFor(ctx.t, "ann");
      const [failed] = await history(token);
      expect(failed).toMatchObject({ kind: "renewal", status: "failed", number: null, tax_rate: 19 });
      expect((await me(ctx.t, token)).subscription.status).toBe("past_due");

      const res = await postJson(
        ctx.t.app,
        "/v1/billing-portal-session",
        {},
        { Authorization: `Bearer ${token}` },
      );
      expect(res.status).toBe(200);
      const path = new URL(((await res.json()) as { url: string }).url).pathname;
      expect(path).toMatch(/^\/_checkout\/billing\/bps_\w{24}$/);
      const page = await (await ctx.t.app.request(path)).text();
      expect(page).toContain("The last payment for Tier A failed");
      // A declined card stays on the page; a good one pays the open invoice and returns.
      const post = (card: string) =>
        ctx.t.app.request(path, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ card_number: card }).toString(),
        });
      const declined = await post("4000 0000 0000 0002");
      expect(declined.status).toBe(200);
      expect(await declined.text()).toContain("Your card was declined.");
      const saved = await post("4242 4242 4242 4242");
      expect(saved.status).toBe(303);
      expect(saved.headers.get("location")).toBe(`${TEST_PORTAL_URL}/profile/billing`);
      await ctx.t.tasks.idle();
      const [paid, first] = await history(token);
      expect(first?.number).toMatch(/-000001$/);
      expect(paid).toMatchObject({
        id: failed?.id,
        status: "paid",
        number: numberAfter(first?.number, ctx.t.clock.now()),
      });
      expect((await me(ctx.t, token)).subscription).toMatchObject({ plan: "Tier A", status: "active" });
      // The link serves once.
      expect((await ctx.t.app.request(path)).status).toBe(410);
    });
  });

  it("keeps the hosted page's session details when the buyer pays", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "A");
    expect((await payAt(ctx.t, path, "4242 4242 4242 4242", FRENCH_BUSINESS)).status).toBe(303);
    const id = path.split("/").pop() ?? "";
    const [session] = await ctx.t.deps.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
    expect(session).toMatchObject({
      status: "complete",
      buyerName: "Exemple SARL",
      buyerCountry: "FR",
      buyerVatId: "FR40303265045",
      taxTreatment: "reverse_charge",
      taxRateBasisPoints: 0,
      amountTax: 0,
    });
  });
});
