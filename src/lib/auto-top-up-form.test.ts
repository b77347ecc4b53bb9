import { describe, expect, it } from "vitest";
import type { AutoTopUp } from "../../contract/auto-top-up.ts";
import { CARD, NEVER_SET } from "./auto-top-up-fixtures.ts";
import {
  canResume,
  cardArrived,
  cardSignature,
  chargesMeter,
  checkForm,
  defaultPack,
  errorsFrom422,
  fieldOf,
  formFrom,
  moneyInput,
  needsConsent,
  type Pack,
  packsFrom,
  parseMoney,
  resetsText,
  type SettingsForm,
  withConsent,
} from "./auto-top-up-form.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "./auto-top-up-text.ts";

const E = AUTO_TOP_UP_PAGE_TEXT.errors;

const PACKS: Pack[] = packsFrom([
  {
    id: "prod_1000",
    name: "1000 credit pack",
    default_price: { unit_amount: 9000, currency: "eur" },
    metadata: { token_amount: "1000" },
  },
  {
    id: "prod_500",
    name: "500 credit pack",
    default_price: { unit_amount: 5000, currency: "eur" },
    metadata: { token_amount: "500" },
  },
]);

const ON: AutoTopUp = {
  ...NEVER_SET,
  enabled: true,
  status: "active",
  threshold: 100,
  product_id: "prod_500",
  monthly_limit: { amount: 20000, currency: "eur" },
  card: CARD,
};

describe("parseMoney: what a person types, in cents", () => {
  it.each([
    ["200", 20000],
    ["200.5", 20050],
    ["200.50", 20050],
    ["200,50", 20050],
    ["0.07", 7],
    ["1,000", 100000],
    ["1,000.50", 100050],
    ["€ 200", 20000],
    [" 10000 ", 1000000],
    ["200,5", 20050],
    ["10,000", 1000000],
    ["100,000", 10000000],
    ["1,000,000", 100000000],
    ["1,000,000.25", 100000025],
  ])("%j is %i", (text, cents) => {
    expect(parseMoney(text)).toBe(cents);
  });

  it.each([
    "",
    "abc",
    "200.505",
    "-5",
    "2e3",
    "200.",
    "1,00,0",
    "12.3.4",
    "1234,567",
    "1,0000",
    "1,000,50",
    ",50",
    "1,000,",
  ])("%j is not an amount", (text) => {
    expect(parseMoney(text)).toBeNull();
  });
});

describe("moneyInput: cents as a person types them", () => {
  it.each([
    [20000, "200"],
    [20050, "200.50"],
    [20005, "200.05"],
    [7, "0.07"],
    [0, "0"],
  ])("%i is %j", (cents, text) => {
    expect(moneyInput(cents)).toBe(text);
    expect(parseMoney(text)).toBe(cents);
  });
});

describe("formFrom: the form's first values", () => {
  it("a first setting starts at 100 credits, the 500-credit pack and four packs' net price", () => {
    expect(formFrom(NEVER_SET, PACKS)).toEqual({
      enabled: false,
      threshold: "100",
      productId: "prod_500",
      limit: "200",
    });
  });

  it("a saved setting starts from what the API has", () => {
    const saved = {
      ...ON,
      threshold: 250,
      product_id: "prod_1000",
      monthly_limit: { amount: 45050, currency: "eur" },
    };
    expect(formFrom(saved, PACKS)).toEqual({
      enabled: true,
      threshold: "250",
      productId: "prod_1000",
      limit: "450.50",
    });
  });

  it("without a 500-credit pack, the first pack is the default", () => {
    expect(defaultPack(PACKS.filter((p) => p.credits !== 500))?.id).toBe("prod_1000");
    expect(defaultPack([])).toBeUndefined();
  });

  it("a saved pack without a saved limit starts at four of that pack's net price", () => {
    expect(formFrom({ ...NEVER_SET, product_id: "prod_1000" }, PACKS)).toEqual({
      enabled: false,
      threshold: "100",
      productId: "prod_1000",
      limit: "360",
    });
  });

  it("without any pack it starts at four €50 packs and no pack", () => {
    expect(formFrom(NEVER_SET, [])).toEqual({
      enabled: false,
      threshold: "100",
      productId: "",
      limit: "200",
    });
  });
});

describe("checkForm: the PUT body, or a message beside each field", () => {
  const valid: SettingsForm = { enabled: true, threshold: "100", productId: "prod_500", limit: "200" };

  it("maps the form to the request in minor units and the pack's currency", () => {
    expect(checkForm({ ...valid, limit: "200.50" }, PACKS)).toEqual({
      ok: true,
      request: {
        enabled: true,
        threshold: 100,
        product_id: "prod_500",
        monthly_limit: { amount: 20050, currency: "eur" },
      },
    });
  });

  it.each<[string, Partial<SettingsForm>, keyof ReturnType<typeof errorsFor>, string]>([
    ["an unknown pack", { productId: "prod_x" }, "product_id", E.unknownPack],
    ["an empty threshold", { threshold: "" }, "threshold", E.thresholdNotWhole],
    ["a threshold with decimals", { threshold: "10.5" }, "threshold", E.thresholdNotWhole],
    ["a threshold under 10", { threshold: "9" }, "threshold", E.thresholdTooLow],
    ["a threshold of the pack's credits", { threshold: "500" }, "threshold", E.thresholdTooHigh(500)],
    ["a limit that is not money", { limit: "lots" }, "monthly_limit", E.limitNotMoney],
    ["a limit under one pack", { limit: "49.99" }, "monthly_limit", E.limitTooLow("€50.00")],
    ["a limit over €10,000", { limit: "10000.01" }, "monthly_limit", E.limitTooHigh("€10,000.00")],
    ["a limit of 0", { limit: "0" }, "monthly_limit", E.limitNotPositive],
    ["a limit of 0 while off", { enabled: false, limit: "0" }, "monthly_limit", E.limitNotPositive],
  ])("refuses %s", (_, change, field, message) => {
    expect(errorsFor({ ...valid, ...change })[field]).toBe(message);
  });

  it("refuses a threshold of spaces as not whole (not as 0)", () => {
    expect(errorsFor({ ...valid, threshold: "   " })).toEqual({ threshold: E.thresholdNotWhole });
  });

  it("an unknown pack's limit over €10,000 is said in euros", () => {
    expect(errorsFor({ ...valid, productId: "prod_x", limit: "10000.01" })).toEqual({
      product_id: E.unknownPack,
      monthly_limit: E.limitTooHigh("€10,000.00"),
    });
  });

  it("sends the pack's own currency", () => {
    const usd: Pack = { id: "prod_usd", name: "500 USD", credits: 500, unitAmount: 5000, currency: "usd" };
    expect(checkForm({ ...valid, productId: "prod_usd", limit: "40" }, [usd])).toEqual({
      ok: false,
      errors: { monthly_limit: E.limitTooLow("$50.00") },
    });
    expect(checkForm({ ...valid, productId: "prod_usd" }, [usd])).toEqual({
      ok: true,
      request: {
        enabled: true,
        threshold: 100,
        product_id: "prod_usd",
        monthly_limit: { amount: 20000, currency: "usd" },
      },
    });
  });

  it("takes the least threshold and limit, and spaces around the threshold", () => {
    expect(checkForm({ ...valid, threshold: "10", limit: "50" }, PACKS)).toEqual({
      ok: true,
      request: {
        enabled: true,
        threshold: 10,
        product_id: "prod_500",
        monthly_limit: { amount: 5000, currency: "eur" },
      },
    });
    const spaced = checkForm({ ...valid, threshold: " 150 " }, PACKS);
    expect(spaced.ok && spaced.request.threshold).toBe(150);
  });

  it("takes the highest threshold a pack allows and the €10,000 limit", () => {
    expect(checkForm({ ...valid, threshold: "499", limit: "10000" }, PACKS).ok).toBe(true);
    expect(checkForm({ ...valid, productId: "prod_1000", threshold: "999" }, PACKS).ok).toBe(true);
  });

  it("a limit below one pack may be saved while off (turning off is never refused)", () => {
    expect(checkForm({ ...valid, enabled: false, limit: "10" }, PACKS).ok).toBe(true);
  });

  function errorsFor(form: SettingsForm) {
    const checked = checkForm(form, PACKS);
    if (checked.ok) throw new Error("expected a refusal");
    return checked.errors;
  }
});

describe("errorsFrom422: the API's refusals beside their fields", () => {
  it.each([
    [["body", "threshold"], "threshold"],
    [["body", "product_id"], "product_id"],
    [["body", "monthly_limit", "amount"], "monthly_limit"],
    [["body", "monthly_limit", "currency"], "monthly_limit"],
    [["body", "consent"], "consent"],
    [["body", "consent", "text_version"], "consent"],
    [["body", "enabled"], "enabled"],
    [["body"], "form"],
    [["query", "x"], "form"],
    [["threshold"], "threshold"],
  ])("%j is %s", (loc, field) => {
    expect(fieldOf(loc)).toBe(field);
  });

  it("keeps the first message per field", () => {
    expect(
      errorsFrom422([
        { loc: ["body", "threshold"], msg: "low" },
        { loc: ["body", "threshold"], msg: "second" },
        { loc: ["body", "monthly_limit", "amount"], msg: "limit" },
        { loc: ["body", "consent"], msg: "agree" },
        { msg: "no loc" },
        { loc: ["body", "threshold"] },
        "junk",
        null,
      ]),
    ).toEqual({ threshold: "low", monthly_limit: "limit", consent: "agree", form: "no loc" });
  });

  it("skips items that are not objects or whose message is not a sentence", () => {
    expect(errorsFrom422([undefined, 7, { loc: ["body", "threshold"], msg: 42 }])).toStrictEqual({});
    expect(
      errorsFrom422([
        { loc: ["body", "threshold"], msg: 42 },
        { loc: ["body", "threshold"], msg: "low" },
      ]),
    ).toStrictEqual({
      threshold: "low",
    });
  });

  it.each([[[5]], [[null, "threshold"]], [["body", 5]], [[]]])("%j is the form's", (loc) => {
    expect(fieldOf(loc)).toBe("form");
  });

  it("a sentence is the form's; nothing else is anything", () => {
    expect(errorsFrom422("Consent is needed")).toEqual({ form: "Consent is needed" });
    expect(errorsFrom422(undefined)).toEqual({});
    expect(errorsFrom422("")).toEqual({});
  });
});

describe("needsConsent", () => {
  const request = {
    enabled: true,
    threshold: 100,
    product_id: "prod_500",
    monthly_limit: { amount: 20000, currency: "eur" },
  };
  it.each([
    ["turning on from never set up", NEVER_SET, request, true],
    ["turning on from off", { ...ON, enabled: false, status: "off" as const }, request, true],
    ["on again after staff turned it off", { ...ON, status: "off" as const }, request, true],
    ["saving the same values while on", ON, request, false],
    ["a new threshold while on", ON, { ...request, threshold: 150 }, true],
    ["a new pack while on", ON, { ...request, product_id: "prod_1000" }, true],
    ["a new limit while on", ON, { ...request, monthly_limit: { amount: 30000, currency: "eur" } }, true],
    [
      "a limit in another currency while on",
      ON,
      { ...request, monthly_limit: { amount: 20000, currency: "usd" } },
      true,
    ],
    [
      "the same limit in capitals while on",
      ON,
      { ...request, monthly_limit: { amount: 20000, currency: "EUR" } },
      false,
    ],
    ["a first limit while on", { ...ON, monthly_limit: null }, request, true],
    [
      "the same values while paused for a new card",
      { ...ON, status: "paused" as const, paused_reason: "card_replaced" },
      request,
      true,
    ],
    [
      "the same values while paused for new terms",
      { ...ON, status: "paused" as const, paused_reason: "consent_changed" },
      request,
      true,
    ],
    [
      "the same values while paused for a decline",
      { ...ON, status: "paused" as const, paused_reason: "declined" },
      request,
      false,
    ],
    [
      "the same values while active with a reason left over",
      { ...ON, status: "active" as const, paused_reason: "card_replaced" },
      request,
      false,
    ],
    ["turning off", ON, { ...request, enabled: false }, false],
    ["values while off", NEVER_SET, { ...request, enabled: false }, false],
  ])("%s: %s", (_, state, req, expected) => {
    expect(needsConsent(state, req)).toBe(expected);
  });
});

describe("withConsent", () => {
  it("sends the text shown with its version, replacing any consent before", () => {
    const request = {
      enabled: true,
      threshold: 100,
      product_id: "prod_500",
      monthly_limit: { amount: 20000, currency: "eur" },
      consent: { text_version: "old", accepted: true as const },
    };
    expect(withConsent(request, { text: "We will charge…", version: "v2" })).toEqual({
      ...request,
      consent: { text_version: "v2", text: "We will charge…", accepted: true },
    });
  });
});

describe("chargesMeter", () => {
  const eur = (amount: number) => ({ amount, currency: "eur" });
  const meter = (charged: number, reserved: number, limit: number | null) =>
    chargesMeter({
      charged_this_month: eur(charged),
      reserved_this_month: eur(reserved),
      monthly_limit: limit === null ? null : eur(limit),
    });

  // A cancelled attempt's invoice still open keeps its room: the next pack would pass the limit, and
  // the meter says why (what is reserved, filled in the bar) instead of showing room left.
  it.each([
    ["what was charged against the limit", 12000, 0, 20000, 12000, 20000, "€120.00 of €200.00 this month"],
    [
      "what the limit keeps for money not taken yet, filled in the bar",
      11900,
      5950,
      20000,
      17850,
      20000,
      "€119.00 charged + €59.50 reserved of €200.00 this month",
    ],
    [
      "reserved with nothing charged",
      0,
      5950,
      20000,
      5950,
      20000,
      "€0.00 charged + €59.50 reserved of €200.00 this month",
    ],
    ["a bar never runs past its end", 25000, 0, 20000, 20000, 20000, "€250.00 of €200.00 this month"],
    [
      "nor with what is reserved",
      11900,
      11900,
      20000,
      20000,
      20000,
      "€119.00 charged + €119.00 reserved of €200.00 this month",
    ],
    // Before the first save the form shows the limit it starts from: the meter does not say "no limit".
    [
      "before a limit is saved, that it applies once saved",
      0,
      0,
      null,
      0,
      1,
      "Nothing charged this month. The monthly limit applies once the settings are saved.",
    ],
    [
      "without a limit the bar is full at what counts",
      500,
      0,
      null,
      500,
      500,
      "€5.00 this month. The monthly limit applies once the settings are saved.",
    ],
    [
      "and counts what is reserved",
      0,
      5950,
      null,
      5950,
      5950,
      "€0.00 charged + €59.50 reserved this month. The monthly limit applies once the settings are saved.",
    ],
    [
      "a limit of 0 is no limit",
      500,
      0,
      0,
      500,
      500,
      "€5.00 this month. The monthly limit applies once the settings are saved.",
    ],
  ] as const)("%s", (_case, charged, reserved, limit, value, max, text) => {
    expect(meter(charged, reserved, limit)).toEqual({ value, max, text, reserved: reserved > 0 });
  });
  it("each amount in its own currency", () => {
    expect(
      chargesMeter({
        charged_this_month: { amount: 100, currency: "usd" },
        reserved_this_month: { amount: 200, currency: "usd" },
        monthly_limit: { amount: 1000, currency: "usd" },
      }).text,
    ).toBe("$1.00 charged + $2.00 reserved of $10.00 this month");
  });
});

describe("resetsText: on the visitor's clock", () => {
  it.each([
    ["Europe/Berlin", "Resets on 2026-12-01 at 00:00 (your local time)."],
    ["America/New_York", "Resets on 2026-11-30 at 18:00 (your local time)."],
    ["Asia/Tokyo", "Resets on 2026-12-01 at 08:00 (your local time)."],
  ])("%s", (zone, text) => {
    expect(resetsText("2026-11-30T23:00:00.000Z", zone)).toBe(text);
  });
  it("without a zone, the runtime's own", () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    for (const iso of ["2026-11-30T23:00:00.000Z", "2026-06-15T04:05:00.000Z"]) {
      const at = new Date(iso);
      const pad = (n: number) => String(n).padStart(2, "0");
      const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
      const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
      expect(resetsText(iso)).toBe(`Resets on ${day} at ${time} (your local time).`);
      expect(resetsText(iso)).toBe(resetsText(iso, zone));
    }
  });
  it("an unreadable instant says nothing", () => {
    expect(resetsText("soon")).toBeNull();
  });
});

describe("cardArrived: the saved card after the card page", () => {
  const card = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 };
  it("a card's signature, or none", () => {
    expect(cardSignature(card)).toBe("visa:4242:12:2030");
    expect(cardSignature(null)).toBe("none");
  });
  it.each([
    ["no card yet", "none", null, false],
    ["the first card", "none", card, true],
    ["the same card as before", cardSignature(card), card, false],
    ["a replaced card", cardSignature({ ...card, last4: "1111" }), card, true],
    ["any card when the one before is not known", null, card, true],
    ["no card, the one before not known", null, null, false],
    ["no card after one", cardSignature(card), null, false],
  ])("%s", (_, before, now, arrived) => {
    expect(cardArrived(before, now)).toBe(arrived);
  });
});

describe("canResume", () => {
  it.each([
    ["active", { status: "active" as const, paused_reason: null }, false],
    ["a decline", { status: "paused" as const, paused_reason: "declined" }, true],
    [
      "the daily limit (it ends at midnight in Berlin)",
      { status: "paused" as const, paused_reason: "daily_limit" },
      false,
    ],
    ["the monthly limit", { status: "paused" as const, paused_reason: "monthly_limit" }, false],
    ["a limit below one pack", { status: "paused" as const, paused_reason: "limit_below_pack" }, false],
    ["an authentication", { status: "paused" as const, paused_reason: "authentication_required" }, false],
    ["the card's saver left", { status: "paused" as const, paused_reason: "member_left" }, false],
    ["a new card", { status: "paused" as const, paused_reason: "card_replaced" }, false],
    ["new terms", { status: "paused" as const, paused_reason: "consent_changed" }, false],
    ["a pause without a reason", { status: "paused" as const, paused_reason: null }, true],
    ["off", { status: "off" as const, paused_reason: null }, false],
  ])("%s", (_, change, expected) => {
    expect(canResume({ ...ON, ...change })).toBe(expected);
  });
  it("never without a card, nor when turned off", () => {
    expect(canResume({ ...ON, status: "paused", paused_reason: "declined", card: null })).toBe(false);
    expect(canResume({ ...ON, status: "paused", paused_reason: "declined", enabled: false })).toBe(false);
  });
});
