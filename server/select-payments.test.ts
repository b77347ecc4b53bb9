import { describe, expect, it } from "vitest";
import { DETAIL } from "../contract/messages.ts";
import type { PaymentProvider } from "./billing/ports/payment-provider.ts";
import { localCheckoutEnabled, localCheckoutNote } from "./env.ts";
import { ApiError } from "./http/errors.ts";
import { localCheckoutBaseUrl, withoutLocalCheckout } from "./select-payments.ts";

describe("the local checkout on a public HOST", () => {
  it.each([
    ["127.0.0.1", false, true],
    ["localhost", false, true],
    ["::1", false, true],
    ["0.0.0.0", false, false],
    ["::", false, false],
    ["192.0.2.10", false, false],
    ["0.0.0.0", true, true],
  ])(
    "HOST=%s with LOCAL_CHECKOUT_ON_PUBLIC_HOST=%s: served %s",
    (HOST, LOCAL_CHECKOUT_ON_PUBLIC_HOST, on) => {
      expect(localCheckoutEnabled({ HOST, LOCAL_CHECKOUT_ON_PUBLIC_HOST })).toBe(on);
    },
  );

  it("says in the start log whether it is on, and why not", () => {
    expect(localCheckoutNote({ HOST: "127.0.0.1", LOCAL_CHECKOUT_ON_PUBLIC_HOST: false })).toBe(
      "Local checkout on at /_checkout (test cards)",
    );
    expect(localCheckoutNote({ HOST: "0.0.0.0", LOCAL_CHECKOUT_ON_PUBLIC_HOST: false })).toBe(
      "Local checkout off (HOST=0.0.0.0 is not a loopback address; LOCAL_CHECKOUT_ON_PUBLIC_HOST=1 serves it): /_checkout answers 404 and new checkouts 503",
    );
    expect(localCheckoutNote({ HOST: "0.0.0.0", LOCAL_CHECKOUT_ON_PUBLIC_HOST: true })).toBe(
      "Local checkout on at /_checkout (test cards) on HOST=0.0.0.0: LOCAL_CHECKOUT_ON_PUBLIC_HOST is set",
    );
  });

  it("refuses new checkouts, card changes and card saving with a 503 and a sentence, and keeps the rest", async () => {
    const cancelNow = async () => undefined;
    const provider = withoutLocalCheckout({ kind: "local", cancelNow } as unknown as PaymentProvider);
    expect(provider.kind).toBe("local");
    expect(provider.cancelNow).toBe(cancelNow);
    for (const call of [
      () => provider.createCheckoutSession({} as never, {} as never),
      () => provider.createPortalSession({} as never, {} as never),
      () => provider.createCardSetupSession({} as never, {} as never),
    ]) {
      const refusal = await call().catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({ status: 503, detail: DETAIL.checkoutUnavailable });
    }
  });
});

describe("localCheckoutBaseUrl", () => {
  it.each([
    [
      "the configured URL wins",
      { LOCAL_CHECKOUT_URL: "https://pay.dev.example/" },
      "https://pay.dev.example",
    ],
    ["npm start: the portal's origin when it is served on PORT", {}, "http://localhost:4321"],
    ["an API on another port: its own host and port", { PORT: 4399 }, "http://127.0.0.1:4399"],
    ["a wildcard bind: localhost", { PORT: 4600, HOST: "0.0.0.0" }, "http://localhost:4600"],
  ])("%s", (_label, override, expected) => {
    const config = {
      LOCAL_CHECKOUT_URL: undefined,
      portalUrl: "http://localhost:4321",
      PORT: 4321,
      HOST: "127.0.0.1",
      ...override,
    };
    expect(localCheckoutBaseUrl(config)).toBe(expected);
  });
});
