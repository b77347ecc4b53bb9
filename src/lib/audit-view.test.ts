import { describe, expect, it } from "vitest";
import { clientOf, detailsText } from "./audit-view.ts";

const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

describe("clientOf", () => {
  it("shows the browser the server named, and keeps the whole User-Agent for those who ask", () => {
    expect(clientOf({ browser: "Chrome 156 on Linux", details: { user_agent: CHROME } }, "Other")).toEqual({
      short: "Chrome 156 on Linux",
      full: CHROME,
    });
  });

  it("lets a short unknown client name itself, and calls a long one `other`", () => {
    expect(clientOf({ browser: null, details: { user_agent: "curl/8.5.0" } }, "Other")).toEqual({
      short: "curl/8.5.0",
      full: null,
    });
    const bot = `SomeCrawler/1.0 (+https://crawler.example/about-this-crawler; ops@example.com)`;
    expect(clientOf({ browser: null, details: { user_agent: bot } }, "Other")).toEqual({
      short: "Other",
      full: bot,
    });
  });

  it("answers null for an entry without a User-Agent", () => {
    expect(clientOf({ browser: null, details: {} }, "Other")).toBeNull();
    expect(clientOf({ browser: null, details: { user_agent: null } }, "Other")).toBeNull();
    expect(clientOf({ browser: null, details: { user_agent: " " } }, "Other")).toBeNull();
  });
});

describe("detailsText", () => {
  it("leaves out the User-Agent and the plumbing, and says the rest as key: value", () => {
    expect(
      detailsText({ user_agent: CHROME, idempotency_key: "k", method: "password", balance_after: 150 }),
    ).toBe("method: password; balance after: 150");
  });

  it("says money as money: a payment's cents beside its currency, and a nested amount", () => {
    expect(detailsText({ amount: 2000, currency: "eur", charge: "ch_1" })).toBe(
      "amount: €20.00; charge: ch_1",
    );
    expect(detailsText({ monthly_limit: { amount: 20000, currency: "eur" }, threshold: 100 })).toBe(
      "monthly limit: €200.00; threshold: 100",
    );
    // Credits have no currency: a number stays a number, and other objects stay JSON.
    expect(detailsText({ amount: 250, features: ["comic"] })).toBe('amount: 250; features: ["comic"]');
    expect(detailsText({ currency: "eur", limit: { amount: "5" } })).toBe(
      'currency: eur; limit: {"amount":"5"}',
    );
    // An auto top-up's charge gives its total (and net and tax) beside the currency.
    expect(detailsText({ total: 5950, net: 5000, tax: 950, currency: "eur", credits: 500 })).toBe(
      "total: €59.50; net: €50.00; tax: €9.50; credits: 500",
    );
  });

  it("says a change as from → to", () => {
    expect(detailsText({ from: "user", to: "support" })).toBe("user → support");
  });
});
