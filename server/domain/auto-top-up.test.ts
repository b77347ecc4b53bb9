import { describe, expect, it } from "vitest";
import {
  type AutoTopUpChoice,
  type AutoTopUpPack,
  type AutoTopUpSettingsInput,
  BALANCE_CAUSES,
  type BalanceCause,
  type ChargeResult,
  CONSENT_TEXT_VERSION,
  type ConsentValues,
  consentCoversCharge,
  consentNeeded,
  consentText,
  DAILY_ATTEMPT_LIMIT,
  DECLINE_SENTENCES,
  declineSentence,
  failureOutcome,
  MAX_MONTHLY_LIMIT,
  MIN_THRESHOLD_CREDITS,
  OFF_REASONS,
  offReason,
  PAUSE_REASONS,
  type PauseReason,
  packGross,
  QUEUEING_CAUSES,
  raisesLimit,
  settingsProblems,
  shouldQueue,
  type TriggerState,
  type VatToday,
  WITHDRAWAL_WAIVER,
} from "./auto-top-up.ts";

const PACK_500: AutoTopUpPack = {
  productId: "prod_test_topup_500",
  credits: 500,
  unitAmount: 5000,
  currency: "eur",
};
const PACK_1000: AutoTopUpPack = {
  productId: "prod_test_topup_1000",
  credits: 1000,
  unitAmount: 9000,
  currency: "eur",
};
const PACKS = [PACK_500, PACK_1000];

const DOMESTIC: VatToday = { treatment: "domestic", rateBasisPoints: 1900 };
const FINNISH_CONSUMER: VatToday = { treatment: "eu_consumer", rateBasisPoints: 2550 };
const REVERSE_CHARGE: VatToday = { treatment: "reverse_charge", rateBasisPoints: 0 };
const OUTSIDE_EU: VatToday = { treatment: "outside_eu", rateBasisPoints: 0 };

describe("the settings' ranges", () => {
  const valid: AutoTopUpSettingsInput = {
    enabled: true,
    threshold: 100,
    product_id: PACK_500.productId,
    monthly_limit: { amount: 20_000, currency: "eur" },
  };
  const problems = (change: Partial<AutoTopUpSettingsInput>, vat: VatToday = DOMESTIC) =>
    settingsProblems({ ...valid, ...change }, { packs: PACKS, vat });

  it("keeps the contract's bounds", () => {
    expect(MIN_THRESHOLD_CREDITS).toBe(10);
    expect(MAX_MONTHLY_LIMIT).toBe(1_000_000);
  });

  it("accepts values in range", () => {
    expect(problems({})).toEqual([]);
  });

  it.each([
    ["9 credits, below the least", PACK_500, 9, "The threshold must be at least 10 credits."],
    ["10 credits, the least", PACK_500, 10, null],
    ["499 credits, one below the 500 pack", PACK_500, 499, null],
    [
      "500 credits, the 500 pack's own credits",
      PACK_500,
      500,
      "The threshold must be below the pack's 500 credits, so that one pack lifts the balance above it.",
    ],
    ["999 credits with the 1,000 pack", PACK_1000, 999, null],
    [
      "1,000 credits with the 1,000 pack",
      PACK_1000,
      1000,
      "The threshold must be below the pack's 1,000 credits, so that one pack lifts the balance above it.",
    ],
    ["a fraction of a credit", PACK_500, 100.5, "The threshold must be a whole number of credits."],
    ["not a number", PACK_500, Number.NaN, "The threshold must be a whole number of credits."],
    ["0 credits", PACK_500, 0, "The threshold must be at least 10 credits."],
  ] as const)("threshold: %s", (_case, pack, threshold, message) => {
    const limit = { amount: 20_000, currency: "eur" };
    expect(problems({ threshold, product_id: pack.productId, monthly_limit: limit })).toEqual(
      message === null ? [] : [{ field: "threshold", message }],
    );
  });

  it.each([
    ["a tier's product", "prod_test_tier_a"],
    ["an empty id", ""],
  ])("product_id: %s is not a pack", (_case, productId) => {
    expect(problems({ product_id: productId })).toEqual([
      { field: "product_id", message: "Choose one of the credit packs." },
    ]);
  });

  it("without a known pack, still checks the threshold's lower bound, but nothing that needs the pack", () => {
    expect(
      problems({ product_id: "nope", threshold: 5000, monthly_limit: { amount: 1, currency: "usd" } }),
    ).toEqual([{ field: "product_id", message: "Choose one of the credit packs." }]);
    expect(
      problems({ product_id: "nope", threshold: 9, monthly_limit: { amount: 0.5, currency: "eur" } }),
    ).toEqual([
      { field: "product_id", message: "Choose one of the credit packs." },
      { field: "threshold", message: "The threshold must be at least 10 credits." },
      { field: "monthly_limit.amount", message: "The monthly limit must be a whole number of cents." },
    ]);
  });

  const tooLow = (gross: string) =>
    `The monthly limit must be at least ${gross}, the price of one pack including VAT.`;
  const tooHigh = "The monthly limit can be at most €10,000.00 including VAT.";

  it.each([
    ["one cent below one pack at 19 %", DOMESTIC, PACK_500, 5949, tooLow("€59.50")],
    ["exactly one pack at 19 %", DOMESTIC, PACK_500, 5950, null],
    ["one cent below the 1,000 pack at 19 %", DOMESTIC, PACK_1000, 10_709, tooLow("€107.10")],
    ["exactly the 1,000 pack at 19 %", DOMESTIC, PACK_1000, 10_710, null],
    ["one cent below one pack at Finland's 25.5 %", FINNISH_CONSUMER, PACK_500, 6274, tooLow("€62.75")],
    ["exactly one pack at Finland's 25.5 %", FINNISH_CONSUMER, PACK_500, 6275, null],
    ["one cent below one pack under reverse charge", REVERSE_CHARGE, PACK_500, 4999, tooLow("€50.00")],
    ["exactly one pack under reverse charge", REVERSE_CHARGE, PACK_500, 5000, null],
    ["exactly one pack outside the EU", OUTSIDE_EU, PACK_500, 5000, null],
    ["€10,000, the most", DOMESTIC, PACK_500, 1_000_000, null],
    ["one cent above €10,000", DOMESTIC, PACK_500, 1_000_001, tooHigh],
    [
      "a fraction of a cent",
      DOMESTIC,
      PACK_500,
      10_000.5,
      "The monthly limit must be a whole number of cents.",
    ],
    [
      "half a cent, not compared with one pack's price",
      DOMESTIC,
      PACK_500,
      0.5,
      "The monthly limit must be a whole number of cents.",
    ],
  ] as const)("monthly limit: %s", (_case, vat, pack, amount, message) => {
    const input = { product_id: pack.productId, monthly_limit: { amount, currency: "eur" } };
    expect(problems(input, vat)).toEqual(
      message === null ? [] : [{ field: "monthly_limit.amount", message }],
    );
  });

  it.each([
    [
      "another currency",
      "usd",
      [
        {
          field: "monthly_limit.currency",
          message: "The monthly limit must be in EUR, the currency of the pack.",
        },
      ],
    ],
    ["the pack's currency in capitals", "EUR", []],
  ] as const)("monthly limit's currency: %s", (_case, currency, expected) => {
    expect(problems({ monthly_limit: { amount: 20_000, currency } })).toEqual(expected);
  });

  it("does not compare an amount in another currency with the pack's price", () => {
    expect(problems({ monthly_limit: { amount: 1, currency: "usd" } })).toEqual([
      {
        field: "monthly_limit.currency",
        message: "The monthly limit must be in EUR, the currency of the pack.",
      },
    ]);
  });

  it("turning off is never refused for a limit below one pack (billing details may have changed)", () => {
    expect(problems({ enabled: false, monthly_limit: { amount: 5949, currency: "eur" } })).toEqual([]);
    expect(problems({ enabled: false, monthly_limit: { amount: 1_000_001, currency: "eur" } })).toEqual([
      { field: "monthly_limit.amount", message: tooHigh },
    ]);
  });

  const notPositive = "The monthly limit must be more than zero.";

  it.each([
    ["0 while on", true, 0],
    ["0 while off", false, 0],
    ["a negative amount while on", true, -1],
    ["a negative amount while off", false, -5950],
  ] as const)("monthly limit: %s is refused, whatever the pack costs", (_case, enabled, amount) => {
    // One problem for the field, not also "at least one pack": the table allows no limit of 0.
    expect(problems({ enabled, monthly_limit: { amount, currency: "eur" } })).toEqual([
      { field: "monthly_limit.amount", message: notPositive },
    ]);
  });

  it("a limit of 0 without a known pack is still refused", () => {
    expect(
      problems({ enabled: false, product_id: "nope", monthly_limit: { amount: 0, currency: "eur" } }),
    ).toEqual([
      { field: "product_id", message: "Choose one of the credit packs." },
      { field: "monthly_limit.amount", message: notPositive },
    ]);
  });

  it("one cent while off is a limit (below one pack, which turning off never refuses)", () => {
    expect(problems({ enabled: false, monthly_limit: { amount: 1, currency: "eur" } })).toEqual([]);
  });

  it.each([0, -1, 9])("threshold: %s credits is refused while off too", (threshold) => {
    expect(problems({ enabled: false, threshold })).toEqual([
      { field: "threshold", message: "The threshold must be at least 10 credits." },
    ]);
  });

  it("names every field that is out of range, in the body's order", () => {
    expect(problems({ threshold: 500, monthly_limit: { amount: 100, currency: "eur" } })).toEqual([
      {
        field: "threshold",
        message:
          "The threshold must be below the pack's 500 credits, so that one pack lifts the balance above it.",
      },
      { field: "monthly_limit.amount", message: tooLow("€59.50") },
    ]);
  });

  it("prices one pack with the VAT rules", () => {
    expect(packGross(PACK_500, DOMESTIC)).toBe(5950);
    expect(packGross(PACK_1000, FINNISH_CONSUMER)).toBe(11_295);
    expect(packGross(PACK_1000, REVERSE_CHARGE)).toBe(9000);
  });
});

describe("consent and recent authentication", () => {
  const on: AutoTopUpChoice = {
    enabled: true,
    cardId: "pm_1",
    productId: PACK_500.productId,
    threshold: 100,
    monthlyLimit: { amount: 20_000, currency: "eur" },
  };
  const off: AutoTopUpChoice = { ...on, enabled: false };

  it.each([
    ["turning on for the first time", null, on, true],
    ["turning on from off, same values", off, on, true],
    ["saving values while off", off, { ...off, threshold: 50 }, false],
    ["first values saved off", null, off, false],
    ["turning off", on, off, false],
    ["saving the same values while on", on, { ...on }, false],
    ["a new card while on", on, { ...on, cardId: "pm_2" }, true],
    ["a card removed while on", on, { ...on, cardId: null }, true],
    ["another pack while on", on, { ...on, productId: PACK_1000.productId }, true],
    ["another threshold while on", on, { ...on, threshold: 101 }, true],
    ["a lower limit while on", on, { ...on, monthlyLimit: { amount: 19_999, currency: "eur" } }, true],
    [
      "a limit in another currency while on",
      on,
      { ...on, monthlyLimit: { amount: 20_000, currency: "usd" } },
      true,
    ],
  ] as const)("consent: %s → %s", (_case, previous, next, expected) => {
    expect(consentNeeded(previous, next, { consented: "text", now: "text" })).toBe(expected);
  });

  const paused: AutoTopUpChoice = on;
  it.each([
    ["resuming, the text unchanged", paused, on, "text", "text", false],
    ["resuming, the VAT or price changed since", paused, on, "at 19 %", "at 20 %", true],
    ["resuming, a replaced card with the same values", paused, on, "ending 4242", "ending 0341", true],
    ["resuming, no consent on file", paused, on, null, "text", true],
    ["turning off, the text changed", on, off, "at 19 %", "at 20 %", false],
    ["saving values while off, the text changed", off, { ...off, threshold: 50 }, "a", "b", false],
  ] as const)("consent for the text: %s → %s", (_case, previous, next, consented, now, expected) => {
    expect(consentNeeded(previous, next, { consented, now })).toBe(expected);
  });

  it.each([
    ["a first limit", null, on, true],
    ["the same limit", on, { ...on, threshold: 50 }, false],
    ["one cent more", on, { ...on, monthlyLimit: { amount: 20_001, currency: "eur" } }, true],
    ["one cent less", on, { ...on, monthlyLimit: { amount: 19_999, currency: "eur" } }, false],
    ["another currency", on, { ...on, monthlyLimit: { amount: 100, currency: "usd" } }, true],
    ["more while off", off, { ...off, monthlyLimit: { amount: 30_000, currency: "eur" } }, true],
  ] as const)("raises the limit: %s → %s", (_case, previous, next, expected) => {
    expect(raisesLimit(previous, next)).toBe(expected);
  });
});

describe("the consent text", () => {
  const values: ConsentValues = {
    cardLast4: "4242",
    pack: PACK_500,
    vat: DOMESTIC,
    hasVatId: true,
    threshold: 100,
    monthlyLimit: { amount: 20_000, currency: "eur" },
  };
  const tail =
    "whenever this organisation's balance falls below 100 credits, at most €200.00 including VAT per " +
    "calendar month (Europe/Berlin). You can turn this off at any time under Billing.";

  it("has a version", () => {
    expect(CONSENT_TEXT_VERSION).toBe("2026-11-auto-top-up-1");
  });

  it.each([
    [
      "a German business: 19 %",
      values,
      `We will charge your card ending 4242 €50.00 plus VAT (€59.50 at today's 19 %) for 500 credits ${tail}`,
    ],
    [
      "a German consumer: 19 % and the waiver",
      { ...values, hasVatId: false },
      `We will charge your card ending 4242 €50.00 plus VAT (€59.50 at today's 19 %) for 500 credits ${tail} ` +
        "I ask for the credits to be supplied at once and know that I lose my right of withdrawal when they are.",
    ],
    [
      "a Finnish consumer: 25.5 % and the waiver",
      { ...values, vat: FINNISH_CONSUMER, hasVatId: false },
      `We will charge your card ending 4242 €50.00 plus VAT (€62.75 at today's 25.5 %) for 500 credits ${tail} ` +
        "I ask for the credits to be supplied at once and know that I lose my right of withdrawal when they are.",
    ],
    [
      "an EU business under reverse charge",
      { ...values, vat: REVERSE_CHARGE },
      `We will charge your card ending 4242 €50.00 (reverse charge) for 500 credits ${tail}`,
    ],
    [
      "a business outside the EU",
      { ...values, vat: OUTSIDE_EU },
      `We will charge your card ending 4242 €50.00 (no VAT: outside the EU) for 500 credits ${tail}`,
    ],
    [
      "the 1,000 pack, a 999 threshold, the most limit",
      {
        ...values,
        cardLast4: "0341",
        pack: PACK_1000,
        threshold: 999,
        monthlyLimit: { amount: 1_000_000, currency: "eur" },
      },
      "We will charge your card ending 0341 €90.00 plus VAT (€107.10 at today's 19 %) for 1,000 credits " +
        "whenever this organisation's balance falls below 999 credits, at most €10,000.00 including VAT per " +
        "calendar month (Europe/Berlin). You can turn this off at any time under Billing.",
    ],
  ] as const)("%s", (_case, given, expected) => {
    expect(consentText(given)).toBe(expected);
  });

  it("ends with the consumer's waiver", () => {
    expect(WITHDRAWAL_WAIVER).toBe(
      "I ask for the credits to be supplied at once and know that I lose my right of withdrawal when they are.",
    );
  });
});

describe("whether a consent still covers a charge", () => {
  const agreed = { credits: 500, gross: 5950, currency: "eur", waiver: true };
  it.each([
    ["the same price, waiver given and needed", agreed, true],
    ["the same price; a VAT ID now confirmed needs no waiver", { ...agreed, waiver: false }, true],
    ["another gross (French VAT instead of German)", { ...agreed, gross: 6000 }, false],
    ["one cent more", { ...agreed, gross: 5951 }, false],
    ["one cent less", { ...agreed, gross: 5949 }, false],
    ["another currency", { ...agreed, currency: "usd" }, false],
    ["fewer credits for the same price (the catalogue changed the pack)", { ...agreed, credits: 400 }, false],
  ] as const)("%s", (_case, today, covered) => {
    expect(consentCoversCharge(agreed, today)).toBe(covered);
  });

  it("a business's consent without the waiver does not cover a consumer's charge at the same price", () => {
    const business = { credits: 500, gross: 5000, currency: "eur", waiver: false };
    expect(consentCoversCharge(business, { ...business, waiver: true })).toBe(false);
    expect(consentCoversCharge(business, business)).toBe(true);
  });
});

describe("the trigger", () => {
  const below: TriggerState = {
    status: "active",
    openAttempt: false,
    balance: 99_999,
    threshold: 100_000,
    cause: "consume_charged",
    attemptsToday: 0,
  };

  it("lists every cause, and which of them queue", () => {
    expect(BALANCE_CAUSES).toEqual([
      "consume_charged",
      "consume_refused_insufficient",
      "turned_on",
      "resumed",
      "auto_top_up_granted",
      "staff_take_back",
      "refund",
      "dispute_hold",
      "expiry",
    ]);
    expect(QUEUEING_CAUSES).toEqual([
      "consume_charged",
      "consume_refused_insufficient",
      "turned_on",
      "resumed",
      "auto_top_up_granted",
    ]);
    expect(DAILY_ATTEMPT_LIMIT).toBe(10);
  });

  it.each([
    ["consume_charged", { action: "queue" }],
    ["consume_refused_insufficient", { action: "queue" }],
    ["turned_on", { action: "queue" }],
    ["resumed", { action: "queue" }],
    ["auto_top_up_granted", { action: "queue" }],
    ["staff_take_back", { action: "skip", reason: "cause_never_queues" }],
    ["refund", { action: "skip", reason: "cause_never_queues" }],
    ["dispute_hold", { action: "skip", reason: "cause_never_queues" }],
    ["expiry", { action: "skip", reason: "cause_never_queues" }],
  ] as const)("below the threshold after %s", (cause: BalanceCause, expected) => {
    expect(shouldQueue({ ...below, cause })).toEqual(expected);
  });

  it.each([
    ["paused", { status: "paused" }, { action: "skip", reason: "not_active" }],
    ["off", { status: "off" }, { action: "skip", reason: "not_active" }],
    ["an attempt open", { openAttempt: true }, { action: "skip", reason: "attempt_open" }],
    ["balance one milli-credit below", { balance: 99_999 }, { action: "queue" }],
    [
      "balance exactly at the threshold",
      { balance: 100_000 },
      { action: "skip", reason: "not_below_threshold" },
    ],
    ["balance above", { balance: 100_001 }, { action: "skip", reason: "not_below_threshold" }],
    ["a negative balance", { balance: -500 }, { action: "queue" }],
    ["the 10th attempt today (9 made)", { attemptsToday: 9 }, { action: "queue" }],
    ["the 11th attempt today (10 made)", { attemptsToday: 10 }, { action: "pause", reason: "daily_limit" }],
    ["more than 10 made", { attemptsToday: 11 }, { action: "pause", reason: "daily_limit" }],
    [
      "a never-queueing cause with 10 made",
      { attemptsToday: 10, cause: "refund" },
      { action: "skip", reason: "cause_never_queues" },
    ],
    [
      "paused with 10 made",
      { attemptsToday: 10, status: "paused" },
      { action: "skip", reason: "not_active" },
    ],
    [
      "an open attempt with 10 made",
      { attemptsToday: 10, openAttempt: true },
      { action: "skip", reason: "attempt_open" },
    ],
    [
      "above the threshold with 10 made",
      { attemptsToday: 10, balance: 100_000 },
      { action: "skip", reason: "not_below_threshold" },
    ],
    [
      "paused with an attempt open",
      { status: "paused", openAttempt: true },
      { action: "skip", reason: "not_active" },
    ],
  ] as const)("%s", (_case, change: Partial<TriggerState>, expected) => {
    expect(shouldQueue({ ...below, ...change })).toEqual(expected);
  });
});

describe("a charge's answer", () => {
  const authentication =
    "Your bank asks you to confirm the last payment. Use the payment link we sent; auto top-up resumes once it is paid.";
  const generic =
    "Your card was declined. Your card issuer can tell you why, or you can save another card under Billing.";

  it.each([
    ["paid", { status: "paid" }, { next: "grant" }],
    [
      "authentication required",
      { status: "requires_action" },
      { next: "paused", reason: "authentication_required", attempt: "open", sentence: authentication },
    ],
    [
      "a decline for want of authentication",
      { status: "declined", code: "authentication_required" },
      { next: "paused", reason: "authentication_required", attempt: "open", sentence: authentication },
    ],
    [
      "insufficient funds",
      { status: "declined", code: "insufficient_funds" },
      {
        next: "paused",
        reason: "declined",
        attempt: "failed",
        code: "insufficient_funds",
        sentence:
          "Your card has insufficient funds for this payment. Add funds, or save another card under Billing.",
      },
    ],
    [
      "card declined",
      { status: "declined", code: "card_declined" },
      { next: "paused", reason: "declined", attempt: "failed", code: "card_declined", sentence: generic },
    ],
    [
      "an unknown code",
      { status: "declined", code: "brand_new_code" },
      { next: "paused", reason: "declined", attempt: "failed", code: "brand_new_code", sentence: generic },
    ],
    [
      "no code",
      { status: "declined", code: null },
      { next: "paused", reason: "declined", attempt: "failed", code: null, sentence: generic },
    ],
  ] as const)("%s", (_case, result: ChargeResult, expected) => {
    expect(failureOutcome(result)).toEqual(expected);
  });
});

describe("decline sentences", () => {
  const S = {
    generic:
      "Your card was declined. Your card issuer can tell you why, or you can save another card under Billing.",
    insufficientFunds:
      "Your card has insufficient funds for this payment. Add funds, or save another card under Billing.",
    overLimit:
      "Your card has reached its spending limit. Ask your card issuer to raise it, or save another card under Billing.",
    expired: "Your card has expired. Save a current card under Billing.",
    cvc: "Your card's security code was not accepted. Save the card again under Billing, with its correct code.",
    number: "Your card number was not accepted. Save the card again, or another card, under Billing.",
    postcode: "Your card's postcode did not match your bank's records. Save the card again under Billing.",
    pin: "Your card asks for a PIN, which a payment online cannot give. Save another card under Billing.",
    temporary:
      "Your bank could not process this payment just now. Resume auto top-up under Billing to try again, or save another card.",
    notSupported:
      "Your card cannot be used for this kind of payment. Ask your card issuer, or save another card under Billing.",
    currency: "Your card cannot pay in this currency. Save another card under Billing.",
    authentication:
      "Your bank asks you to confirm this payment. Use the payment link we sent to complete it.",
    stopped:
      "Your bank stopped payments to us at your request. Save another card under Billing, or ask your bank to allow them.",
    duplicate:
      "Your bank took this for a repeat of a recent payment. Check your statement before you resume auto top-up under Billing.",
    amount:
      "Your bank does not allow a payment of this amount. Ask your card issuer, or save another card under Billing.",
    newDetails: "Your card's details have changed. Save the new card under Billing.",
    tooManyDeclines:
      "This card was declined too often recently. Wait a day before you resume auto top-up, or save another card under Billing.",
  };
  // Lost, stolen, fraudulent and blocked cards read as generic declines on purpose (Stripe's advice).
  const CODES: [string, string][] = [
    ["approve_with_id", S.temporary],
    ["authentication_required", S.authentication],
    ["call_issuer", S.generic],
    ["card_decline_rate_limit_exceeded", S.tooManyDeclines],
    ["card_declined", S.generic],
    ["card_not_supported", S.notSupported],
    ["card_velocity_exceeded", S.overLimit],
    ["currency_not_supported", S.currency],
    ["do_not_honor", S.generic],
    ["do_not_try_again", S.generic],
    ["duplicate_transaction", S.duplicate],
    ["expired_card", S.expired],
    ["fraudulent", S.generic],
    ["generic_decline", S.generic],
    ["incorrect_cvc", S.cvc],
    ["incorrect_number", S.number],
    ["incorrect_pin", S.pin],
    ["incorrect_zip", S.postcode],
    ["insufficient_funds", S.insufficientFunds],
    ["invalid_account", S.notSupported],
    ["invalid_amount", S.amount],
    ["invalid_cvc", S.cvc],
    ["invalid_expiry_month", S.expired],
    ["invalid_expiry_year", S.expired],
    ["invalid_number", S.number],
    ["invalid_pin", S.pin],
    ["issuer_not_available", S.temporary],
    ["lost_card", S.generic],
    ["merchant_blacklist", S.generic],
    ["new_account_information_available", S.newDetails],
    ["no_action_taken", S.generic],
    ["not_permitted", S.notSupported],
    ["offline_pin_required", S.pin],
    ["online_or_offline_pin_required", S.pin],
    ["pickup_card", S.generic],
    ["pin_try_exceeded", S.pin],
    ["processing_error", S.temporary],
    ["reenter_transaction", S.temporary],
    ["restricted_card", S.generic],
    ["revocation_of_all_authorizations", S.stopped],
    ["revocation_of_authorization", S.stopped],
    ["security_violation", S.generic],
    ["service_not_allowed", S.notSupported],
    ["stolen_card", S.generic],
    ["stop_payment_order", S.stopped],
    ["testmode_decline", S.generic],
    ["transaction_not_allowed", S.notSupported],
    ["try_again_later", S.temporary],
    ["withdrawal_count_limit_exceeded", S.overLimit],
  ];

  it.each(CODES)("%s", (code, sentence) => {
    expect(declineSentence(code)).toBe(sentence);
  });

  it("has a sentence for exactly the codes listed", () => {
    expect(Object.keys(DECLINE_SENTENCES).sort()).toEqual(CODES.map(([code]) => code).sort());
  });

  it("tells the remedies apart: each kind of decline has its own sentence", () => {
    expect(new Set(Object.values(S)).size).toBe(Object.keys(S).length);
    expect(new Set(CODES.map(([, sentence]) => sentence)).size).toBe(Object.keys(S).length);
  });

  it.each([
    ["an unknown code", "brand_new_code"],
    ["a code in capitals", "INSUFFICIENT_FUNDS"],
    ["an empty code", ""],
    ["no code", null],
    ["a name of Object.prototype", "constructor"],
    ["__proto__", "__proto__"],
    ["toString", "toString"],
  ])("%s reads as a generic decline", (_case, code) => {
    expect(declineSentence(code)).toBe(S.generic);
  });
});

describe("why auto top-up is paused or off", () => {
  it.each([
    [
      "plan_ended",
      { status: "off", sentence: "Auto top-up is off because this organisation's paid plan ended." },
    ],
    ["card_removed", { status: "off", sentence: "Auto top-up is off because the saved card was removed." }],
    [
      "organisation_disabled",
      { status: "off", sentence: "Auto top-up is off because this organisation was disabled." },
    ],
    [
      "dispute_hold",
      { status: "off", sentence: "Auto top-up is off because a payment of this organisation was disputed." },
    ],
    [
      "staff",
      {
        status: "off",
        sentence:
          "Auto top-up was turned off by our support team. Contact support, or turn it on again under Billing.",
      },
    ],
    ["member_left", { status: "paused", sentence: "The member who saved this card left" }],
  ] as const)("%s", (reason, expected) => {
    expect(offReason(reason)).toEqual(expected);
  });

  it("lists the off reasons", () => {
    expect(Object.keys(OFF_REASONS)).toEqual([
      "plan_ended",
      "card_removed",
      "organisation_disabled",
      "dispute_hold",
      "staff",
    ]);
  });

  it.each([
    [
      "authentication_required",
      "Your bank asks you to confirm the last payment. Use the payment link we sent; auto top-up resumes once it is paid.",
    ],
    ["declined", "The last automatic payment was declined."],
    [
      "daily_limit",
      "Auto top-up reached today's limit of 10 top-ups, declined and cancelled ones included. It resumes by itself at midnight (Berlin time).",
    ],
    [
      "monthly_limit",
      "The next pack would pass this month's limit. Auto top-up resumes next month, or raise the limit under Billing.",
    ],
    [
      "limit_below_pack",
      "One pack now costs more than the monthly limit including VAT. Raise the limit or choose another pack under Billing.",
    ],
    ["member_left", "The member who saved this card left"],
    ["card_replaced", "A new card was saved. Agree to the terms for it under Billing to resume auto top-up."],
  ] as const)("paused: %s", (reason: PauseReason, sentence) => {
    expect(PAUSE_REASONS[reason]).toEqual({ status: "paused", sentence });
  });

  it("lists the pause reasons", () => {
    expect(Object.keys(PAUSE_REASONS)).toEqual([
      "authentication_required",
      "declined",
      "daily_limit",
      "monthly_limit",
      "limit_below_pack",
      "member_left",
      "consent_changed",
      "card_replaced",
    ]);
  });
});
