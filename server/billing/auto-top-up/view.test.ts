import { describe, expect, it } from "vitest";
import { declineSentence, OFF_REASONS, PAUSE_REASONS } from "../../domain/auto-top-up.ts";
import { reasonText } from "./view.ts";

const row = (
  reason: string | null,
  reasonDetail: string | null = null,
  declineCode: string | null = null,
) => ({
  reason,
  reasonDetail,
  declineCode,
});

describe("the sentence Billing shows for why auto top-up is paused or off", () => {
  const plain = [...Object.entries(PAUSE_REASONS), ...Object.entries(OFF_REASONS)].filter(
    ([reason]) => reason !== "declined",
  );

  it.each(plain)("%s reads as its own sentence", (reason, info) => {
    expect(reasonText(row(reason))).toBe(info.sentence);
  });

  it.each([
    [
      "the sentence stored with the decline",
      row("declined", "Stored words.", "expired_card"),
      "Stored words.",
    ],
    ["else the sentence of its code", row("declined", null, "expired_card"), declineSentence("expired_card")],
    ["else a generic decline", row("declined"), declineSentence(null)],
  ])("a decline adds %s", (_name, settings, detail) => {
    expect(reasonText(settings)).toBe(`${PAUSE_REASONS.declined.sentence} ${detail}`);
  });

  it.each([
    ["no reason (the customer turned it off)", null],
    ["a reason this version does not know", "constructor"],
  ])("%s has no sentence", (_name, reason) => {
    expect(reasonText(row(reason))).toBeNull();
  });
});
