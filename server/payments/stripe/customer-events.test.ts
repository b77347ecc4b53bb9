// Subscriptions (in events, and as Stripe answers one) and customers' tax IDs as the parser reads
// them (event-parser.test.ts says how these files are laid out).
import { describe, expect, it } from "vitest";
import { at, event, INVOICE, parsed, REF, T } from "../../testing/stripe-events.ts";
import { stripeFixture } from "../local/stripe-fixtures.ts";
import { parseStripeSubscription } from "./customer-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

const SUBSCRIPTION = {
  id: "sub_1",
  status: "active",
  cancel_at_period_end: true,
  customer: "cus_1",
  metadata: { user_id: "user_1" },
  items: {
    data: [{ current_period_start: T, current_period_end: T + 100, price: { product: "prod_a" } }],
  },
};

describe("subscriptions", () => {
  it.each([
    ["org_id before user_id", { org_id: "org_1", user_id: "user_1" }, "org_1"],
    ["user_id of an object made before organisations", { user_id: "user_1" }, "user_1"],
    ["neither", {}, null],
  ])("the payer of a subscription and its invoices: %s", (_case, metadata, payer) => {
    expect(parsed(event("customer.subscription.updated", { ...SUBSCRIPTION, metadata }))).toMatchObject({
      userId: payer,
    });
    const inv = { ...INVOICE, parent: { subscription_details: { subscription: "sub_1", metadata } } };
    expect(parsed(event("invoice.paid", inv))).toMatchObject({ userId: payer });
  });

  it("an update: status, cancellation, product and period from its item", () => {
    expect(parsed(event("customer.subscription.updated", SUBSCRIPTION))).toEqual({
      ...REF("customer.subscription.updated"),
      kind: "subscription_updated",
      userId: "user_1",
      customerId: "cus_1",
      subscriptionId: "sub_1",
      status: "active",
      cancelAtPeriodEnd: true,
      productId: "prod_a",
      period: { start: at(T), end: at(T + 100) },
    });
  });

  it("the period from before 2025-03-31 (on the subscription), and no product without an item", () => {
    const raw = event("customer.subscription.updated", {
      ...SUBSCRIPTION,
      metadata: null,
      customer: null,
      items: { data: [] },
      current_period_start: T,
      current_period_end: T + 50,
    });
    expect(parsed(raw)).toMatchObject({
      userId: null,
      customerId: null,
      productId: null,
      period: { start: at(T), end: at(T + 50) },
    });
  });

  it.each([
    ["no start", { current_period_start: null, current_period_end: T + 100 }],
    ["no end", { current_period_start: T, current_period_end: null }],
    ["neither", {}],
  ])("a period with %s is none", (_case, item) => {
    const raw = event("customer.subscription.updated", {
      ...SUBSCRIPTION,
      items: { data: [{ ...item, price: { product: "prod_a" } }] },
    });
    expect(parsed(raw)).toMatchObject({ period: null });
  });

  it("an unreadable subscription is refused with the field", () => {
    expect(parseStripeEvent(event("customer.subscription.deleted", { id: "sub_1" }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^customer\.subscription\.deleted evt_1: status: /),
    });
  });

  it("a retrieved subscription reads as its update event does", () => {
    expect(parseStripeSubscription(SUBSCRIPTION)).toEqual({
      ok: true,
      snapshot: {
        status: "active",
        cancelAtPeriodEnd: true,
        productId: "prod_a",
        period: { start: at(T), end: at(T + 100) },
      },
    });
  });

  it("an unreadable retrieved subscription is refused with the field", () => {
    expect(parseStripeSubscription({ id: "sub_1" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^subscription: status: /),
    });
  });
});

describe("customer.tax_id.created and .updated", () => {
  /** Stripe's own example tax ID (fixtures3.json): an eu_vat of customer cus_QXg1o8vcGmoR32, pending. */
  const taxId = (extra: Record<string, unknown> = {}) => ({ ...stripeFixture("tax_id"), ...extra });

  it.each(["customer.tax_id.created", "customer.tax_id.updated"])(
    "%s: the customer's VAT ID and its check, as Stripe's example has them",
    (type) => {
      expect(parsed(event(type, taxId()))).toEqual({
        ...REF(type),
        kind: "vat_id_checked",
        customerId: "cus_QXg1o8vcGmoR32",
        vatId: "DE123456789",
        status: "pending",
      });
    },
  );

  it.each(["verified", "unverified", "unavailable"] as const)("reads the status %s", (status) => {
    const raw = taxId({ verification: { status, verified_address: null, verified_name: null } });
    expect(parsed(event("customer.tax_id.updated", raw))).toMatchObject({ status });
  });

  it("reads an unknown status, or none, as pending: never as verified", () => {
    expect(
      parsed(event("customer.tax_id.updated", taxId({ verification: { status: "confirmed_later" } }))),
    ).toMatchObject({ status: "pending" });
    expect(parsed(event("customer.tax_id.updated", taxId({ verification: null })))).toMatchObject({
      status: "pending",
    });
  });

  it("reads an expanded customer by its id", () => {
    const raw = taxId({ customer: { id: "cus_2", object: "customer" } });
    expect(parsed(event("customer.tax_id.updated", raw))).toMatchObject({ customerId: "cus_2" });
  });

  it("ignores another type of tax ID, and one of no customer (an account's)", () => {
    expect(parsed(event("customer.tax_id.updated", taxId({ type: "gb_vat" })))).toMatchObject({
      kind: "ignored",
      reason: "tax ID of type gb_vat",
    });
    expect(parsed(event("customer.tax_id.created", taxId({ customer: null })))).toMatchObject({
      kind: "ignored",
      reason: "tax ID of no customer",
    });
  });

  it("refuses a tax ID without its value, naming the field", () => {
    expect(parseStripeEvent(event("customer.tax_id.updated", taxId({ value: "" })))).toEqual({
      ok: false,
      error: expect.stringMatching(/^customer\.tax_id\.updated evt_1: value: /),
    });
  });

  it("ignores a deleted tax ID (customer.tax_id.deleted): a replaced VAT ID is gone from file already", () => {
    expect(parsed(event("customer.tax_id.deleted", taxId()))).toMatchObject({ kind: "ignored" });
  });
});
