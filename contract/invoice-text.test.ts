import { describe, expect, it } from "vitest";
import { returnedParts } from "./invoice-text.ts";

const euros = (cents: number) => `€${(cents / 100).toFixed(2)}`;

describe("returnedParts: what went back of an invoice", () => {
  it("nothing when nothing went back", () => {
    expect(returnedParts({ status: "paid", refunded: 0 }, euros)).toEqual([]);
    expect(returnedParts({ status: "dispute_lost", refunded: 0, taken_back: 0 }, euros)).toEqual([]);
  });

  it("a refund, in part or whole", () => {
    expect(returnedParts({ status: "paid", refunded: 1000 }, euros)).toEqual(["€10.00 refunded"]);
    expect(returnedParts({ status: "refunded", refunded: 5950 }, euros)).toEqual(["€59.50 refunded"]);
  });

  it("a lost dispute with nothing refunded before: only what the bank took back", () => {
    const taken = ["€59.50 taken back by the buyer's bank after a dispute"];
    expect(returnedParts({ status: "dispute_lost", refunded: 5950, taken_back: 5950 }, euros)).toEqual(taken);
    // An answer without the figure (an older client's cache) reads the whole amount as taken back.
    expect(returnedParts({ status: "dispute_lost", refunded: 5950 }, euros)).toEqual(taken);
  });

  it("a lost dispute after a partial refund: each part once", () => {
    expect(returnedParts({ status: "dispute_lost", refunded: 5950, taken_back: 4950 }, euros)).toEqual([
      "€10.00 refunded",
      "€49.50 taken back by the buyer's bank after a dispute",
    ]);
  });

  it("never more taken back than went back, nor a refund line of nothing", () => {
    expect(returnedParts({ status: "dispute_lost", refunded: 1000, taken_back: 5000 }, euros)).toEqual([
      "€10.00 taken back by the buyer's bank after a dispute",
    ]);
    expect(returnedParts({ status: "dispute_lost", refunded: 1000, taken_back: 0 }, euros)).toEqual([
      "€10.00 refunded",
    ]);
  });
});
