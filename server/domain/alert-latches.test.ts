import { describe, expect, it } from "vitest";
import { capWarningStep, lowBalanceStep, pastCapWarningMark } from "./alert-latches.ts";

const reading = (
  alerted: boolean,
  unreservedBefore: number,
  wholeAfter: number,
  threshold: number | null = 1000,
) => ({
  threshold,
  alerted,
  unreservedBefore,
  wholeAfter,
});

describe("the low-balance latch", () => {
  it("mails once when the whole balance is below the threshold, and latches", () => {
    expect(lowBalanceStep(reading(false, 1500, 999))).toEqual({ mail: true, latched: true });
    expect(lowBalanceStep(reading(false, 1500, 1000))).toEqual({ mail: false, latched: false });
    // Already below (a lease's charges took it there): the next evaluation mails.
    expect(lowBalanceStep(reading(false, 200, 300))).toEqual({ mail: true, latched: true });
    expect(lowBalanceStep(reading(true, 999, 500))).toEqual({ mail: false, latched: true });
  });

  it("stays latched while only reserved credits keep the whole balance up", () => {
    // A lease ended unspent: nothing was added, the unreserved balance is below the threshold.
    expect(lowBalanceStep(reading(true, 999, 1200))).toEqual({ mail: false, latched: true });
  });

  it("clears when the unreserved balance is back at the threshold, and mails a new fall", () => {
    expect(lowBalanceStep(reading(true, 1000, 1000))).toEqual({ mail: false, latched: false });
    expect(lowBalanceStep(reading(true, 5000, 4000))).toEqual({ mail: false, latched: false });
    // Credits added, then this charge takes the balance below again: a new fall.
    expect(lowBalanceStep(reading(true, 1000, 999))).toEqual({ mail: true, latched: true });
  });

  it("does nothing while the alert is off, keeping the latch as stored", () => {
    expect(lowBalanceStep(reading(false, 5, 0, null))).toEqual({ mail: false, latched: false });
    expect(lowBalanceStep(reading(true, 5000, 5000, null))).toEqual({ mail: false, latched: true });
  });
});

describe("the member cap's warning latch", () => {
  it("warns once, when what was spent passes 80 % of the cap", () => {
    expect(pastCapWarningMark(8000, 10_000)).toBe(false);
    expect(pastCapWarningMark(8001, 10_000)).toBe(true);
    expect(capWarningStep(false, 8000, 10_000)).toEqual({ mail: false, latched: false });
    expect(capWarningStep(false, 8001, 10_000)).toEqual({ mail: true, latched: true });
    expect(capWarningStep(true, 9000, 10_000)).toEqual({ mail: false, latched: true });
  });

  it("never warns without a cap", () => {
    expect(capWarningStep(false, 1_000_000, null)).toEqual({ mail: false, latched: false });
    expect(capWarningStep(true, 1_000_000, null)).toEqual({ mail: false, latched: true });
  });
});
