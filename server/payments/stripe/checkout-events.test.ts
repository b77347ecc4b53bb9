// Checkout sessions as the parser reads them (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { at, event, parsed, REF, T, topUpSession } from "../../testing/stripe-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

describe("checkout sessions", () => {
  it("a delayed payment that failed grants nothing and says so", () => {
    expect(parsed(event("checkout.session.async_payment_failed", topUpSession()))).toEqual({
      ...REF("checkout.session.async_payment_failed"),
      kind: "ignored",
      reason: "delayed payment of a checkout session failed: nothing was granted",
    });
  });

  it("a delayed payment that succeeded is a paid top-up like a paid completion", () => {
    expect(parsed(event("checkout.session.async_payment_succeeded", topUpSession()))).toMatchObject({
      kind: "topup_paid",
      checkoutSessionId: "cs_1",
      fulfilmentKey: "topup:cs_1",
    });
  });

  it("a session without an amount or a currency carries no payment", () => {
    for (const extra of [{}, { amount_total: 5000 }, { currency: "eur" }]) {
      expect(parsed(event("checkout.session.completed", topUpSession(extra)))).toMatchObject({
        kind: "topup_paid",
        payment: null,
      });
    }
  });

  it("reads a sparse paid session: net from total less tax, no buyer, its invoice", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5950,
        total_details: { amount_tax: 950 },
        currency: "eur",
        invoice: "in_1",
      }),
    );
    expect(parsed(raw)).toEqual({
      ...REF("checkout.session.completed"),
      kind: "topup_paid",
      userId: "user_1",
      customerId: null,
      productId: "prod_500",
      paidAt: at(T),
      checkoutSessionId: "cs_1",
      payment: {
        net: 5000,
        tax: 950,
        total: 5950,
        currency: "eur",
        reverseCharge: false,
        buyer: { name: null, email: null, country: null, vatId: null },
      },
      invoiceId: "in_1",
      paymentIntentId: null,
      fulfilmentKey: "topup:cs_1",
    });
  });

  it.each([
    [
      "a tax that makes the total wrong",
      { amount_subtotal: 64_900, amount_total: 64_900, total_details: { amount_tax: 100 } },
      "amounts do not add up: net 64900 + tax 100 is not the total 64900",
    ],
    [
      "a negative tax (a signed event found by the robustness test)",
      { amount_subtotal: 64_900, amount_total: 64_900, total_details: { amount_tax: -1_575_385_093 } },
      "negative amounts: net 64900, tax -1575385093",
    ],
  ])("refuses a paid session with %s", (_case, extra, error) => {
    const raw = event("checkout.session.completed", topUpSession({ currency: "eur", ...extra }));
    expect(parseStripeEvent(raw)).toEqual({ ok: false, error: `checkout.session.completed evt_1: ${error}` });
  });

  it("a payment of nothing at all is still a payment", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ amount_total: 0, amount_subtotal: 0, currency: "eur" }),
    );
    expect(parsed(raw)).toMatchObject({ payment: { net: 0, tax: 0, total: 0 } });
  });

  it("no tax details: all of the total is net", () => {
    const raw = event("checkout.session.completed", topUpSession({ amount_total: 5000, currency: "eur" }));
    expect(parsed(raw)).toMatchObject({ payment: { net: 5000, tax: 0, total: 5000 } });
  });

  it("the buyer's EU VAT ID among other tax IDs, and Stripe's reverse-charge word", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5000,
        amount_subtotal: 5000,
        currency: "eur",
        customer_details: {
          name: "Exemple SARL",
          email: "compta@example.fr",
          address: { country: "FR" },
          tax_exempt: "reverse",
          tax_ids: [
            { type: "gb_vat", value: "GB123456789" },
            { type: "eu_vat", value: "FR40303265045" },
          ],
        },
      }),
    );
    expect(parsed(raw)).toMatchObject({
      payment: {
        reverseCharge: true,
        buyer: { name: "Exemple SARL", email: "compta@example.fr", country: "FR", vatId: "FR40303265045" },
      },
    });
  });

  it("a buyer with only a non-EU tax ID and no address has no VAT ID and no country", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({
        amount_total: 5000,
        currency: "eur",
        customer_details: { tax_exempt: "none", tax_ids: [{ type: "gb_vat", value: "GB123456789" }] },
      }),
    );
    expect(parsed(raw)).toMatchObject({
      payment: { reverseCharge: false, buyer: { country: null, vatId: null } },
    });
  });

  it("the user from metadata when there is no client_reference_id", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ client_reference_id: null, metadata: { user_id: "user_9", product_id: "prod_500" } }),
    );
    expect(parsed(raw)).toMatchObject({ userId: "user_9" });
  });

  it.each([
    [
      "org_id before client_reference_id and user_id",
      { client_reference_id: "user_1", metadata: { org_id: "org_1", user_id: "user_1", product_id: "p" } },
      "org_1",
    ],
    ["client_reference_id before user_id", { metadata: { user_id: "user_9", product_id: "p" } }, "user_1"],
  ])("a session's payer: %s", (_case, extra, payer) => {
    expect(parsed(event("checkout.session.completed", topUpSession(extra)))).toMatchObject({ userId: payer });
  });

  it.each([
    ["no metadata at all", { metadata: null }, "no product_id metadata"],
    [
      "no user anywhere",
      { client_reference_id: null, metadata: null },
      "no client_reference_id or user_id metadata",
    ],
  ])("%s is refused", (_case, extra, error) => {
    expect(parseStripeEvent(event("checkout.session.completed", topUpSession(extra)))).toEqual({
      ok: false,
      error: `checkout.session.completed evt_1: ${error}`,
    });
  });

  it("an unreadable session is refused with the field", () => {
    expect(parseStripeEvent(event("checkout.session.completed", { id: "cs_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^checkout\.session\.completed evt_1: mode: /),
    });
  });

  it("a subscription session without an invoice says so", () => {
    const raw = event(
      "checkout.session.completed",
      topUpSession({ mode: "subscription", subscription: "sub_1" }),
    );
    expect(parsed(raw)).toMatchObject({ kind: "subscription_started", invoiceId: null });
  });
});
