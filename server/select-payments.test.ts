import { describe, expect, it } from "vitest";
import { localCheckoutBaseUrl } from "./select-payments.ts";

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
