// Refunds and disputes as the parser reads them (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { event, parsed, REF } from "../../testing/stripe-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

const CHARGE = {
  id: "ch_1",
  amount: 5000,
  amount_refunded: 2000,
  currency: "eur",
  customer: "cus_1",
  payment_intent: "pi_1",
};

describe("charge.refunded", () => {
  it("the charge, its payment and what is refunded so far", () => {
    expect(parsed(event("charge.refunded", CHARGE))).toEqual({
      ...REF("charge.refunded"),
      kind: "charge_refunded",
      chargeId: "ch_1",
      paymentIntentId: "pi_1",
      invoiceId: null,
      customerId: "cus_1",
      amount: 5000,
      amountRefunded: 2000,
      currency: "eur",
    });
  });

  it("before 2025-03-31 a charge named its invoice; expanded objects are read by id", () => {
    const raw = event("charge.refunded", {
      ...CHARGE,
      invoice: { id: "in_1" },
      payment_intent: { id: "pi_2" },
      customer: null,
    });
    expect(parsed(raw)).toMatchObject({ invoiceId: "in_1", paymentIntentId: "pi_2", customerId: null });
  });

  it.each([
    ["no id", { ...CHARGE, id: "" }, /^charge\.refunded evt_1: id: /],
    ["a negative refund", { ...CHARGE, amount_refunded: -1 }, /^charge\.refunded evt_1: amount_refunded: /],
  ])("%s is refused", (_case, object, error) => {
    expect(parseStripeEvent(event("charge.refunded", object))).toEqual({
      ok: false,
      error: expect.stringMatching(error),
    });
  });
});

describe("disputes", () => {
  const DISPUTE = { id: "dp_1", charge: "ch_1", payment_intent: "pi_1", status: "needs_response" };

  it.each([
    ["charge.dispute.created", "created", "needs_response"],
    ["charge.dispute.closed", "closed", "won"],
  ] as const)("%s: phase %s", (type, phase, status) => {
    expect(parsed(event(type, { ...DISPUTE, status }))).toEqual({
      ...REF(type),
      kind: "dispute",
      disputeId: "dp_1",
      chargeId: "ch_1",
      paymentIntentId: "pi_1",
      phase,
      status,
    });
  });

  it("a dispute naming neither charge nor payment", () => {
    expect(parsed(event("charge.dispute.closed", { id: "dp_1", status: "lost" }))).toMatchObject({
      chargeId: null,
      paymentIntentId: null,
    });
  });

  it("an unreadable dispute is refused with the field", () => {
    expect(parseStripeEvent(event("charge.dispute.created", { id: "", status: "x" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^charge\.dispute\.created evt_1: id: /),
    });
  });
});
