import { describe, expect, it } from "vitest";
import { ISO_DATE_TIME_EXPECTED } from "../../../contract/api-keys.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { RequestValidationError } from "../../http/errors.ts";
import { backdated } from "./consume.ts";

const NOW = new Date("2026-11-30T12:00:00Z");

/** The message a refusal of `at` carries, or the instant when there is none. */
function outcome(at: string, allowed = true): string | Date {
  try {
    return backdated(at, NOW, allowed);
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    expect(error.items).toHaveLength(1);
    expect(error.items[0]?.loc).toEqual(["body", "at"]);
    return error.items[0]?.msg ?? "";
  }
}

describe("a simulated charge's time (consume's `at`)", () => {
  it("is the instant given, up to 366 days back, on a server that allows it", () => {
    expect(outcome("2026-11-30T12:00:00Z")).toEqual(NOW);
    expect(outcome("2025-11-29T12:00:00Z")).toEqual(new Date("2025-11-29T12:00:00Z"));
  });

  it("is refused on a server that does not allow it, whatever it says", () => {
    expect(outcome("2026-11-30T11:00:00Z", false)).toBe(DETAIL.backdatingDevelopmentOnly);
    expect(outcome("not a date", false)).toBe(DETAIL.backdatingDevelopmentOnly);
  });

  it("is refused in the future and past 366 days", () => {
    expect(outcome("2026-11-30T12:00:00.001Z")).toBe(DETAIL.backdatingFuture);
    expect(outcome("2025-11-29T11:59:59.999Z")).toBe(DETAIL.backdatingTooOld);
  });

  it("is refused when it names no instant, rather than recorded as an invalid date", () => {
    // The schema refuses these first; the route does not rely on it.
    expect(outcome("not a date")).toBe(ISO_DATE_TIME_EXPECTED);
    expect(outcome("")).toBe(ISO_DATE_TIME_EXPECTED);
  });
});
