// Auto top-up as the API answers it, for the portal's tests of its form and its store: settings
// never set (off, no card, nothing charged) and the test card a customer saves.
import type { AutoTopUp } from "../../contract/auto-top-up.ts";

export const CARD = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 };

export const NEVER_SET: AutoTopUp = {
  enabled: false,
  threshold: null,
  product_id: null,
  monthly_limit: null,
  charged_this_month: { amount: 0, currency: "eur" },
  reserved_this_month: { amount: 0, currency: "eur" },
  limit_resets_at: "2026-11-30T23:00:00.000Z",
  card: null,
  status: "off",
  paused_reason: null,
  reason_text: null,
  paused_until: null,
  consent_text_version: "v1",
  last_attempt: null,
  attempts: [],
};
