import { describe, expect, it } from "vitest";
import { ATTEMPT_STATUSES } from "../../domain/auto-top-up-limit.ts";
import { attemptIdOfKey, historyStatus } from "./history-status.ts";

const PAGE = "http://localhost/_checkout/invoice/in_1";

describe("an auto top-up's row in the billing history", () => {
  it("waits for the bank while its attempt does, with the attempt's payment page", () => {
    expect(historyStatus("failed", { status: "authentication_required", payUrl: PAGE })).toEqual({
      status: "authentication_required",
      payUrl: PAGE,
    });
  });

  it("reads cancelled once its attempt was cancelled (a lapsed link, new settings, a voided invoice)", () => {
    expect(historyStatus("failed", { status: "cancelled", payUrl: PAGE })).toEqual({
      status: "cancelled",
      payUrl: null,
    });
  });

  it.each(["processing", "paid", "failed"] as const)("stays failed when its attempt is %s", (status) => {
    expect(historyStatus("failed", { status, payUrl: PAGE })).toEqual({ status: "failed", payUrl: null });
  });

  it("stays failed without an attempt (a declined renewal)", () => {
    expect(historyStatus("failed", undefined)).toEqual({ status: "failed", payUrl: null });
  });

  it.each(["paid", "not_charged", "refunded", "disputed"] as const)(
    "reads as stored when it is %s, whatever its attempt says",
    (stored) => {
      for (const status of ATTEMPT_STATUSES)
        expect(historyStatus(stored, { status, payUrl: PAGE })).toEqual({ status: stored, payUrl: null });
    },
  );

  it("reads dispute_lost when the refunded payment's dispute was lost: the bank took it back, nobody refunded it", () => {
    expect(historyStatus("refunded", undefined, true)).toEqual({ status: "dispute_lost", payUrl: null });
    expect(historyStatus("refunded", undefined)).toEqual({ status: "refunded", payUrl: null });
    expect(historyStatus("refunded", undefined, false)).toEqual({ status: "refunded", payUrl: null });
  });

  it.each(["paid", "failed", "not_charged", "disputed"] as const)(
    "a lost dispute changes nothing of a row that is %s",
    (stored) => {
      expect(historyStatus(stored, undefined, true)).toEqual({ status: stored, payUrl: null });
    },
  );

  it("names its attempt by its fulfilment key, and nothing for other payments' keys", () => {
    expect(attemptIdOfKey("auto_top_up:0b7e1a52-6f1e-4f55-9d0a-2a1c3d4e5f60")).toBe(
      "0b7e1a52-6f1e-4f55-9d0a-2a1c3d4e5f60",
    );
    expect(attemptIdOfKey("auto_top_up_not_charged:monthly_limit:2026-12")).toBeNull();
    expect(attemptIdOfKey("topup:cs_1")).toBeNull();
    expect(attemptIdOfKey("x auto_top_up:1")).toBeNull();
  });
});
