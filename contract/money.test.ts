import { describe, expect, it } from "vitest";
import { formatMoney, inThousandths } from "./money.ts";

describe("formatMoney", () => {
  it("reads cents as the currency's amount with its symbol, whatever case the code has", () => {
    expect(formatMoney(9401, "eur")).toBe("€94.01");
    expect(formatMoney(9401, "EUR")).toBe("€94.01");
    expect(formatMoney(123456, "usd")).toBe("$1,234.56");
  });

  it("keeps exact cents, zero and a negative amount (a refund)", () => {
    expect(formatMoney(5, "eur")).toBe("€0.05");
    expect(formatMoney(0, "eur")).toBe("€0.00");
    expect(formatMoney(-1900, "eur")).toBe("-€19.00");
  });

  it("gives each currency its own format, also after another was asked first", () => {
    expect(formatMoney(100, "gbp")).toBe("£1.00");
    expect(formatMoney(100, "eur")).toBe("€1.00");
  });

  it("makes one formatter per currency and reuses it", () => {
    const Real = Intl.NumberFormat;
    let made = 0;
    Intl.NumberFormat = class extends Real {
      constructor(...args: ConstructorParameters<typeof Real>) {
        super(...args);
        made += 1;
      }
    } as typeof Intl.NumberFormat;
    try {
      expect(formatMoney(100, "jpy")).toBe("¥1");
      expect(formatMoney(250, "jpy")).toBe("¥3");
    } finally {
      Intl.NumberFormat = Real;
    }
    expect(made).toBe(1);
  });

  it("shows a code without a symbol in capitals, whatever case it was given in", () => {
    expect(formatMoney(150, "chf")).toBe("CHF\u00a01.50");
  });
});

describe("inThousandths", () => {
  it("takes whole thousandths of a credit, binary fractions included", () => {
    for (const n of [0, 1, -1, 0.1, 0.001, 0.5, 1.234, 59.5, 100_000_000, -0.007])
      expect(inThousandths(n)).toBe(true);
  });

  it("refuses a fourth decimal, and what is not a finite number", () => {
    for (const n of [0.0005, 0.0001, 1.2345, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(inThousandths(n)).toBe(false);
  });

  it("refuses a number that rounds to no thousandth, and one past what the ledger can count", () => {
    // Each passed the old tolerance and then failed in toMillicredits (500) or became 0 millicredits.
    for (const n of [1e-10, 1e-13, -1e-13, 0.0004, 1e300]) expect(inThousandths(n)).toBe(false);
    expect(inThousandths(-0)).toBe(true);
  });

  it("accepts exactly what toMillicredits turns into a whole, non-zero number of millicredits", () => {
    // 261.328 × 1000 and 1037.39 × 1000 are 261327.99999999997 and 1037390.0000000001.
    for (const n of [0.001, 0.1 + 0.2, 261.328, 1037.39, 1234567.891, 100_000_000])
      expect(Number.isSafeInteger(Math.round(n * 1000)) && inThousandths(n)).toBe(true);
  });
});
