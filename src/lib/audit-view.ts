// An audit entry's details and client as the console's audit tables show them (the customer page's
// trail and /admin/audit): short text a row can hold on a phone, with the long parts on demand.
import type { AuditEntryView } from "../../contract/admin.ts";
import { formatMoney } from "../../contract/money.ts";

/**
 * Details that are plumbing rather than news to a reader (they stay in the CSV), and the
 * User-Agent, which the row shows apart as its browser (`clientOf`).
 */
const QUIET_DETAILS = new Set(["idempotency_key", "description", "grant_id", "takes", "user_agent"]);

/** Money as the API writes it: minor units with their currency ({amount: 20000, currency: "eur"}). */
function moneyOf(value: unknown): string | null {
  const money = value as { amount?: unknown; currency?: unknown } | null;
  return typeof money === "object" &&
    money !== null &&
    typeof money.amount === "number" &&
    typeof money.currency === "string"
    ? formatMoney(money.amount, money.currency)
    : null;
}

/** The amounts a payment's entry gives in minor units beside its `currency`. */
const MONEY_DETAILS = new Set(["amount", "net", "tax", "total"]);

/**
 * An audit entry's details as short "key: value" text (never secrets: the server keeps none there).
 * Money reads as money: a payment's amounts in cents beside its `currency` ("amount", "net", "tax",
 * "total") are "€20.00", not 2000, and so is a nested {amount, currency}.
 */
export function detailsText(details: Record<string, unknown>): string {
  if (typeof details.from === "string" && typeof details.to === "string")
    return `${details.from} → ${details.to}`;
  const currency = typeof details.currency === "string" ? details.currency : null;
  const paymentPart = (key: string, value: unknown) =>
    currency !== null && MONEY_DETAILS.has(key) && typeof value === "number"
      ? formatMoney(value, currency)
      : null;
  const folded = Object.entries(details).some(([key, value]) => paymentPart(key, value) !== null);
  return Object.entries(details)
    .filter(([key, value]) => !QUIET_DETAILS.has(key) && value !== null && !(folded && key === "currency"))
    .map(([key, value]) => {
      const text =
        paymentPart(key, value) ??
        moneyOf(value) ??
        (typeof value === "object" ? JSON.stringify(value) : String(value));
      return `${key.replaceAll("_", " ")}: ${text}`;
    })
    .join("; ");
}

/** A User-Agent this short (curl/8.5.0, python-requests/2.32.3) names itself well enough. */
const SELF_NAMING = 32;

export interface ClientView {
  /** What the row shows: "Chrome 131 on Windows", "curl/8.5.0", or `other`. */
  short: string;
  /** The whole User-Agent, for those who ask; null when `short` is all of it. */
  full: string | null;
}

/**
 * The client an entry came from, read from its stored User-Agent; null without one (staff actions,
 * the command line). The server names the browser (`browser`, ua-parser-js): the page carries no
 * parser, and a name it does not know is `other` with the full string on demand.
 */
export function clientOf(
  entry: Pick<AuditEntryView, "browser" | "details">,
  other: string,
): ClientView | null {
  const userAgent = entry.details.user_agent;
  if (typeof userAgent !== "string" || userAgent.trim() === "") return null;
  if (entry.browser) return { short: entry.browser, full: userAgent };
  return userAgent.length <= SELF_NAMING
    ? { short: userAgent, full: null }
    : { short: other, full: userAgent };
}
