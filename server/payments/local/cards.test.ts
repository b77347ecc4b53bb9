import { describe, expect, it } from "vitest";
import { CARD_UNKNOWN_MESSAGE, cardOutcome, TEST_CARDS } from "./cards.ts";

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
});
