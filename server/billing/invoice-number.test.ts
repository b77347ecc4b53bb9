import { describe, expect, it } from "vitest";
import { invoiceNumber } from "./invoice-number.ts";

describe("an invoice's number", () => {
  it("is the provider's document's when it has one, even beside a number of ours", () => {
    expect(invoiceNumber({ number: null }, { number: "7D3F0A1B-0004" })).toBe("7D3F0A1B-0004");
    expect(invoiceNumber({ number: "INV-2026-000001" }, { number: "7D3F0A1B-0004" })).toBe("7D3F0A1B-0004");
  });

  it("is ours without a numbered document", () => {
    expect(invoiceNumber({ number: "INV-2026-000001" }, { number: null })).toBe("INV-2026-000001");
    expect(invoiceNumber({ number: "INV-2026-000001" }, null)).toBe("INV-2026-000001");
    expect(invoiceNumber({ number: "INV-2026-000001" }, undefined)).toBe("INV-2026-000001");
  });

  it("is none while neither is known", () => {
    expect(invoiceNumber({ number: null }, { number: null })).toBeNull();
    expect(invoiceNumber({ number: null }, null)).toBeNull();
  });
});
