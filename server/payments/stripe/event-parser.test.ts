// The parser's rules one field at a time, on the smallest events Stripe could send: what each event
// family becomes, which fallback each field takes on an older API version or a sparse object, and
// what is refused. This file holds the envelope's; each family's are next to its reader
// (checkout-events, card-events, invoice-events, auto-top-up-invoices, customer-events and
// charge-events .test.ts). (events.test.ts reads the local checkout's full events back, end to end.)
import { describe, expect, it } from "vitest";
import { event, parsed } from "../../testing/stripe-events.ts";
import { parseStripeEvent } from "./event-parser.ts";

describe("the envelope", () => {
  it("reads livemode, and an event without it is a test-mode event", () => {
    const raw = event("charge.succeeded", {});
    expect(parsed(raw)).toMatchObject({ livemode: false });
    expect(parsed({ ...raw, livemode: true })).toMatchObject({ livemode: true });
    expect(parsed({ ...raw, livemode: false })).toMatchObject({ livemode: false });
  });

  it("names each field it could not read, and the root when the event is not an object", () => {
    expect(parseStripeEvent({ ...event("x", {}), id: "", created: -1 })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: id: .+; created: .+$/),
    });
    expect(parseStripeEvent("evt")).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: \(root\): /),
    });
  });

  it("refuses an id or a type longer than the 255 characters the API's document allows", () => {
    const long = "x".repeat(256);
    expect(parseStripeEvent({ ...event("charge.succeeded", {}), id: long })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: id: /),
    });
    expect(parseStripeEvent(event(long, {}))).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: type: /),
    });
    expect(parsed({ ...event("charge.succeeded", {}), id: "e".repeat(255) })).toMatchObject({
      eventId: "e".repeat(255),
    });
    expect(parsed(event(`x${"y".repeat(254)}`, {}))).toMatchObject({ kind: "ignored" });
  });

  it("names a field inside the envelope by its path", () => {
    expect(parseStripeEvent({ ...event("x", {}), data: { object: "ch_1" } })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not a Stripe event: data\.object: /),
    });
  });

  it("names the nested field of an object it could not read", () => {
    const result = parseStripeEvent(event("charge.refunded", { id: "ch_1", amount: 1, currency: "eur" }));
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/^charge\.refunded evt_1: amount_refunded: /),
    });
  });
});
