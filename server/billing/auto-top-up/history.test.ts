import { describe, expect, it } from "vitest";
import { declineSentence, PAUSE_REASONS } from "../../domain/auto-top-up.ts";
import { unpaidDescription, unpaidPack } from "./history.ts";

describe("an unpaid auto top-up row's pack", () => {
  it("is its description without the why, as the paid invoice names it", () => {
    const waiting = unpaidDescription("500 credit pack", PAUSE_REASONS.authentication_required.sentence);
    expect(waiting).toBe(
      "Auto top-up: 500 credit pack. Your bank asks you to confirm the last payment. Use the payment link we sent; auto top-up resumes once it is paid.",
    );
    expect(unpaidPack(waiting)).toBe("Auto top-up: 500 credit pack");
  });

  it("keeps a pack name with points in it", () => {
    expect(unpaidPack(unpaidDescription("Pack 1.000 credits", "Declined."))).toBe(
      "Auto top-up: Pack 1.000 credits",
    );
  });

  it('keeps a pack name with ". " in it, whatever the why', () => {
    // The authentication sentence is two sentences, so neither the first nor the last ". " ends the pack.
    for (const name of ["Studio pack no. 5", "Pack v2. Pro 1000 credits", "Pack. Big. 500 credits"]) {
      for (const why of [
        PAUSE_REASONS.authentication_required.sentence,
        PAUSE_REASONS.daily_limit.sentence,
        declineSentence("insufficient_funds"),
        declineSentence("card_declined"),
      ])
        expect(unpaidPack(unpaidDescription(name, why)), `${name} / ${why}`).toBe(`Auto top-up: ${name}`);
    }
  });

  it("with a why it does not know, ends the pack where a sentence starts", () => {
    expect(unpaidPack(unpaidDescription("Studio pack no. 5", "Cancelled: auto top-up was turned off."))).toBe(
      "Auto top-up: Studio pack no. 5",
    );
    expect(unpaidPack(unpaidDescription("500 credit pack", "Declined. Try again."))).toBe(
      "Auto top-up: 500 credit pack",
    );
  });

  it("leaves any other description as it is", () => {
    expect(unpaidPack("Auto top-up: 500 credit pack")).toBe("Auto top-up: 500 credit pack");
    expect(unpaidPack("500 credit pack. Bought at checkout.")).toBe("500 credit pack. Bought at checkout.");
    expect(unpaidPack("Tier A monthly subscription, 2026-11-01 to 2026-12-01")).toBe(
      "Tier A monthly subscription, 2026-11-01 to 2026-12-01",
    );
  });
});
