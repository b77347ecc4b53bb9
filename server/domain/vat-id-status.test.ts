import { describe, expect, it } from "vitest";
import { collectedVatIdStatus } from "./vat-id-status.ts";

const onFile = (vatId: string | null, status: "pending" | "verified" | "unverified" | null) => ({
  vatId,
  status,
});

describe("the state of a VAT ID collected with a payment", () => {
  it("is null without a VAT ID, whatever is on file", () => {
    for (const provider of ["local", "stripe"] as const) {
      expect(
        collectedVatIdStatus({
          provider,
          atCheckout: true,
          vatId: null,
          onFile: onFile("DE136695976", "verified"),
        }),
      ).toBeNull();
    }
  });

  it("is verified when the local checkout collected it: its stand-in confirms a well-formed ID", () => {
    expect(
      collectedVatIdStatus({
        provider: "local",
        atCheckout: true,
        vatId: "DE136695976",
        onFile: onFile("DE136695976", "unverified"),
      }),
    ).toBe("verified");
    expect(
      collectedVatIdStatus({ provider: "local", atCheckout: true, vatId: "FR40303265045", onFile: null }),
    ).toBe("verified");
  });

  it("keeps the state on file for the same VAT ID (a renewal, or Stripe's checkout), however it is written", () => {
    expect(
      collectedVatIdStatus({
        provider: "local",
        atCheckout: false,
        vatId: "DE136695976",
        onFile: onFile("DE136695976", "unverified"),
      }),
    ).toBe("unverified");
    expect(
      collectedVatIdStatus({
        provider: "stripe",
        atCheckout: true,
        vatId: "de 136 695 976",
        onFile: onFile("DE136695976", "verified"),
      }),
    ).toBe("verified");
    expect(
      collectedVatIdStatus({
        provider: "stripe",
        atCheckout: false,
        vatId: "DE136695976",
        onFile: onFile("DE136695976", "unverified"),
      }),
    ).toBe("unverified");
  });

  it("waits for Stripe's check of a new VAT ID, or of one on file without a state", () => {
    expect(
      collectedVatIdStatus({
        provider: "stripe",
        atCheckout: true,
        vatId: "FR40303265045",
        onFile: onFile("DE136695976", "verified"),
      }),
    ).toBe("pending");
    expect(
      collectedVatIdStatus({ provider: "stripe", atCheckout: false, vatId: "FR40303265045", onFile: null }),
    ).toBe("pending");
    expect(
      collectedVatIdStatus({
        provider: "stripe",
        atCheckout: true,
        vatId: "DE136695976",
        onFile: onFile("DE136695976", null),
      }),
    ).toBe("pending");
    expect(
      collectedVatIdStatus({
        provider: "local",
        atCheckout: false,
        vatId: "FR40303265045",
        onFile: onFile(null, null),
      }),
    ).toBe("verified");
  });
});
