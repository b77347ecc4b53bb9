// Auto top-up's saved cards as the parser reads them: a card saved, its changes, and a payment
// method as Stripe answers it (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { at, event, ORG, parsed, REF } from "../../testing/stripe-events.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { parseStripeCard } from "./card-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

describe("auto top-up: a card saved", () => {
  /** Stripe's example SetupIntent (fixtures3.json), succeeded for one of our setup pages. */
  const setupIntent = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("setup_intent"),
    status: "succeeded",
    customer: "cus_1",
    payment_method: "pm_1",
    metadata: { org_id: ORG },
    ...extra,
  });
  /** Stripe's example session in setup mode, as a setup page of ours completes it. */
  const setupSession = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("checkout.session"),
    mode: "setup",
    payment_status: "no_payment_required",
    status: "complete",
    customer: "cus_1",
    metadata: { org_id: ORG },
    setup_intent: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
    ...extra,
  });

  it("setup_intent.succeeded saves its card for metadata.org_id, made when the intent was", () => {
    expect(parsed(event("setup_intent.succeeded", setupIntent()))).toEqual({
      ...REF("setup_intent.succeeded"),
      kind: "card_saved",
      orgId: ORG,
      customerId: "cus_1",
      setupIntentId: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
      setupAt: at(1_234_567_890),
      checkoutSessionId: null,
      paymentMethodId: "pm_1",
      openedBy: null,
    });
  });

  it("names who opened the page from metadata.opened_by, and nobody for a value that is no user id", () => {
    const withOpener = (openedBy: string) =>
      parsed(
        event("setup_intent.succeeded", setupIntent({ metadata: { org_id: ORG, opened_by: openedBy } })),
      );
    expect(withOpener("9b2f0a52-5d2e-4c61-9a43-8f0c2d9e1a22")).toMatchObject({
      kind: "card_saved",
      openedBy: "9b2f0a52-5d2e-4c61-9a43-8f0c2d9e1a22",
    });
    expect(withOpener("not-a-user")).toMatchObject({ kind: "card_saved", openedBy: null });
  });

  it("reads expanded objects by their ids, and an intent of no customer", () => {
    const raw = setupIntent({ customer: null, payment_method: { id: "pm_2", object: "payment_method" } });
    expect(parsed(event("setup_intent.succeeded", raw))).toMatchObject({
      customerId: null,
      paymentMethodId: "pm_2",
    });
  });

  it.each([
    ["no metadata", { metadata: null }],
    ["metadata of something else (a subscription's card)", { metadata: { user_id: ORG } }],
  ])("ignores a setup intent with %s: Stripe's own are not auto top-up's", (_case, extra) => {
    expect(parsed(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ...REF("setup_intent.succeeded"),
      kind: "ignored",
      reason: "setup intent without metadata.org_id: not auto top-up's",
    });
  });

  it.each([
    [
      "no payment method",
      { payment_method: null },
      "setup intent seti_1Pgag7B7WZ01zgkWSgwGdb8Z without a payment_method",
    ],
    [
      "an org_id that is no organisation's id",
      { metadata: { org_id: "org_1" } },
      'metadata.org_id is not an organisation id: "org_1"',
    ],
    ["an empty org_id", { metadata: { org_id: "" } }, 'metadata.org_id is not an organisation id: ""'],
  ])("refuses an intent of ours with %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ok: false,
      error: `setup_intent.succeeded evt_1: ${error}`,
    });
  });

  it.each([
    ["no id", { id: "" }, /^setup_intent\.succeeded evt_1: id: /],
    ["no creation time", { created: undefined }, /^setup_intent\.succeeded evt_1: created: /],
    ["a malformed payment method", { payment_method: 7 }, /^setup_intent\.succeeded evt_1: payment_method: /],
  ])("refuses an unreadable intent: %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("setup_intent.succeeded", setupIntent(extra)))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });

  it("a completed setup session naming its intent only is left to setup_intent.succeeded", () => {
    expect(parsed(event("checkout.session.completed", setupSession()))).toEqual({
      ...REF("checkout.session.completed"),
      kind: "ignored",
      reason: "setup-mode session names its setup intent only: setup_intent.succeeded carries the card",
    });
  });

  it("a completed setup session with its intent expanded saves the card, naming the session", () => {
    const raw = setupSession({ setup_intent: setupIntent({ customer: "cus_other" }) });
    expect(parsed(event("checkout.session.completed", raw))).toEqual({
      ...REF("checkout.session.completed"),
      kind: "card_saved",
      orgId: ORG,
      customerId: "cus_1",
      setupIntentId: "seti_1Pgag7B7WZ01zgkWSgwGdb8Z",
      setupAt: at(1_234_567_890),
      checkoutSessionId: "cs_test_a1YS1URlnyQCN5fUUduORoQ7Pw41PJqDWkIVQCpJPqkfIhd6tVY8XB1OLY",
      paymentMethodId: "pm_1",
      openedBy: null,
    });
  });

  it("the session's customer, else its intent's, else none", () => {
    const raw = (customer: string | null, intentCustomer: string | null) =>
      event(
        "checkout.session.completed",
        setupSession({ customer, setup_intent: setupIntent({ customer: intentCustomer }) }),
      );
    expect(parsed(raw(null, "cus_2"))).toMatchObject({ customerId: "cus_2" });
    expect(parsed(raw(null, null))).toMatchObject({ customerId: null });
  });

  it("a setup session's org_id is its own, whatever its intent says", () => {
    const raw = setupSession({ setup_intent: setupIntent({ metadata: null }) });
    expect(parsed(event("checkout.session.completed", raw))).toMatchObject({
      kind: "card_saved",
      orgId: ORG,
    });
  });

  it.each([
    ["no metadata", { metadata: null }],
    ["no org_id", { metadata: { user_id: ORG } }],
  ])("ignores a setup session with %s (not a setup page of ours), even unpaid", (_case, extra) => {
    expect(parsed(event("checkout.session.completed", setupSession(extra)))).toMatchObject({
      kind: "ignored",
      reason: "setup-mode checkout session without metadata.org_id",
    });
  });

  it.each([
    ["no setup intent", { setup_intent: null }, "setup-mode session without a setup_intent"],
    [
      "an expanded intent without a card",
      { setup_intent: { ...setupIntent(), payment_method: null } },
      "setup intent seti_1Pgag7B7WZ01zgkWSgwGdb8Z without a payment_method",
    ],
    [
      "an org_id that is no organisation's id",
      { metadata: { org_id: "x" }, setup_intent: setupIntent() },
      'metadata.org_id is not an organisation id: "x"',
    ],
  ])("refuses a setup session of ours with %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("checkout.session.completed", setupSession(extra)))).toEqual({
      ok: false,
      error: `checkout.session.completed evt_1: ${error}`,
    });
  });

  it("refuses a setup session whose expanded intent is unreadable", () => {
    const raw = setupSession({ setup_intent: { id: "seti_1" } });
    expect(parseStripeEvent(event("checkout.session.completed", raw))).toEqual({
      ok: false,
      error: expect.stringMatching(/^checkout\.session\.completed evt_1: setup_intent: /),
    });
  });
});

describe("auto top-up: the saved card's changes", () => {
  /** Stripe's example PaymentMethod (fixtures3.json): a Visa ending 4242, expiring 8/2030. */
  const paymentMethod = (extra: Record<string, unknown> = {}) => ({
    ...stripeFixture("payment_method"),
    customer: "cus_1",
    ...extra,
  });
  const CARD = {
    paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
    brand: "visa",
    last4: "4242",
    expMonth: 8,
    expYear: 2030,
  };

  it.each(["payment_method.updated", "payment_method.automatically_updated"])(
    "%s: the card's new brand, last 4 and expiry",
    (type) => {
      expect(parsed(event(type, paymentMethod()))).toEqual({
        ...REF(type),
        kind: "card_updated",
        customerId: "cus_1",
        card: CARD,
      });
    },
  );

  it("an updated card of no customer, or an expanded one", () => {
    expect(parsed(event("payment_method.updated", paymentMethod({ customer: null })))).toMatchObject({
      customerId: null,
    });
    expect(
      parsed(
        event("payment_method.updated", paymentMethod({ customer: { id: "cus_2", object: "customer" } })),
      ),
    ).toMatchObject({ customerId: "cus_2" });
  });

  it("ignores an update of a payment method that is not a card", () => {
    const raw = paymentMethod({ type: "sepa_debit", card: undefined, sepa_debit: { last4: "3000" } });
    expect(parsed(event("payment_method.updated", raw))).toEqual({
      ...REF("payment_method.updated"),
      kind: "ignored",
      reason: "payment method of type sepa_debit, not a card",
    });
  });

  it.each([
    ["no id", { id: "" }, /^payment_method\.updated evt_1: id: /],
    ["no type", { type: undefined }, /^payment_method\.updated evt_1: type: /],
    ["a card without its last 4", { card: { brand: "visa", exp_month: 8, exp_year: 2030 } }, /card\.last4: /],
    [
      "a fractional expiry month",
      { card: { brand: "visa", last4: "4242", exp_month: 8.5, exp_year: 2030 } },
      /card\.exp_month: /,
    ],
  ])("refuses an unreadable payment method: %s", (_case, extra, error) => {
    expect(parseStripeEvent(event("payment_method.updated", paymentMethod(extra)))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });

  it("payment_method.detached: the card, and its customer from before (a detached one names none)", () => {
    const raw = event("payment_method.detached", paymentMethod({ customer: null }), {});
    const withPrevious = { ...raw, data: { ...raw.data, previous_attributes: { customer: "cus_1" } } };
    expect(parsed(withPrevious)).toEqual({
      ...REF("payment_method.detached"),
      kind: "card_detached",
      customerId: "cus_1",
      paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
    });
  });

  it("a detached card's customer: from before, else its own, else none", () => {
    const detached = (customer: string | null, previous: unknown) => {
      const raw = event("payment_method.detached", paymentMethod({ customer }));
      return parsed({ ...raw, data: { ...raw.data, previous_attributes: previous } });
    };
    expect(detached("cus_now", { customer: "cus_before" })).toMatchObject({ customerId: "cus_before" });
    expect(detached("cus_now", { customer: null })).toMatchObject({ customerId: "cus_now" });
    expect(detached("cus_now", { type: "card" })).toMatchObject({ customerId: "cus_now" });
    expect(detached("cus_now", null)).toMatchObject({ customerId: "cus_now" });
    expect(detached(null, undefined)).toMatchObject({ customerId: null });
  });

  it("a detached payment method of any type is read (the saved card is found by its id)", () => {
    const raw = paymentMethod({ type: "sepa_debit", card: null });
    expect(parsed(event("payment_method.detached", raw))).toMatchObject({ kind: "card_detached" });
  });

  it("refuses a detachment whose previous customer is malformed", () => {
    const raw = event("payment_method.detached", paymentMethod());
    expect(parseStripeEvent({ ...raw, data: { ...raw.data, previous_attributes: { customer: 7 } } })).toEqual(
      {
        ok: false,
        error: expect.stringMatching(/^payment_method\.detached evt_1: previous_attributes: customer: /),
      },
    );
  });

  it("refuses an unreadable detached payment method", () => {
    expect(parseStripeEvent(event("payment_method.detached", { id: "pm_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^payment_method\.detached evt_1: type: /),
    });
  });
});

describe("a saved card as Stripe answers it", () => {
  it("its brand, last 4, expiry and customer (null: detached); none for a payment method that is not a card", () => {
    expect(parseStripeCard(stripeFixture("payment_method"))).toEqual({
      ok: true,
      card: {
        paymentMethodId: "pm_1Pgc75B7WZ01zgkWlHVgdEGJ",
        customerId: null,
        brand: "visa",
        last4: "4242",
        expMonth: 8,
        expYear: 2030,
      },
    });
    for (const customer of ["cus_1", { id: "cus_1", object: "customer" }]) {
      expect(parseStripeCard({ ...stripeFixture("payment_method"), customer })).toMatchObject({
        ok: true,
        card: { customerId: "cus_1" },
      });
    }
    expect(parseStripeCard({ ...stripeFixture("payment_method"), type: "sepa_debit", card: null })).toEqual({
      ok: true,
      card: null,
    });
  });

  it("refuses one it cannot read, naming the field", () => {
    expect(parseStripeCard({ id: "pm_1" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^payment method: type: /),
    });
  });
});
