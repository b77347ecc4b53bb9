import { describe, expect, it } from "vitest";
import { CARD_DISPUTE_ONE_OFF_MESSAGE, CARD_UNKNOWN_MESSAGE, cardOutcome, TEST_CARDS } from "./cards.ts";

const grouped = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, "$1 ");

describe("the local checkout's test cards", () => {
  it("names every card it takes when it refuses another, as the page's hint does", () => {
    for (const card of Object.values(TEST_CARDS)) expect(CARD_UNKNOWN_MESSAGE).toContain(grouped(card));
    expect(cardOutcome("4000 0025 0000 3155")).toEqual({
      ok: false,
      status: "invalid",
      message: CARD_UNKNOWN_MESSAGE,
    });
  });

  it("4000 0000 0000 0259 pays a one-off payment, then disputes it; the other cards never dispute", () => {
    expect(cardOutcome("4000 0000 0000 0259", true)).toEqual({
      ok: true,
      renewalsDecline: false,
      disputed: true,
    });
    expect(cardOutcome("4000-0000-0000-0259", true)).toMatchObject({ ok: true, disputed: true });
    expect(cardOutcome(TEST_CARDS.pays, true)).toEqual({ ok: true, renewalsDecline: false, disputed: false });
    expect(cardOutcome(TEST_CARDS.renewalsDecline)).toEqual({
      ok: true,
      renewalsDecline: true,
      disputed: false,
    });
  });

  it("refuses the dispute card for a plan (its invoices name no payment intent to dispute), saying why", () => {
    const refused = { ok: false, status: "invalid", message: CARD_DISPUTE_ONE_OFF_MESSAGE };
    expect(cardOutcome(TEST_CARDS.disputed)).toEqual(refused);
    expect(cardOutcome(TEST_CARDS.disputed, false)).toEqual(refused);
    expect(CARD_DISPUTE_ONE_OFF_MESSAGE).toContain(grouped(TEST_CARDS.disputed));
  });
});
