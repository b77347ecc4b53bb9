// Which console actions a staff member is offered on a customer, and reading the credits typed into
// a grant or take-back: plain functions of the viewer, the customer and the text, so one table
// test holds them. The server checks the same permissions again (server/operations/permissions.ts).
import type { Role } from "../../contract/account.ts";
import type { Customer } from "../../contract/admin.ts";
import { ADMIN_TEXT, OPERATOR_CREDITS_MAX } from "../../contract/admin-rules.ts";
import { CREDIT_PROBLEMS } from "./admin-text.ts";
import { isoDay } from "./format-date.ts";

export type ActionKind =
  | "grant"
  | "takeBack"
  | "sendVerification"
  | "sendReset"
  | "disable"
  | "enable"
  | "role"
  | "cancelAtEnd"
  | "cancelNow"
  | "clearDisputeHold";

/** The actions `viewer` may take on `customer` now, in the order the page shows them. */
export function availableActions(viewer: Role, viewerId: string, customer: Customer): ActionKind[] {
  const own = viewerId === customer.id;
  const admin = viewer === "admin";
  const paid = customer.subscription.status !== "free";
  const list: Array<[ActionKind, boolean]> = [
    ["grant", !own],
    ["takeBack", admin && !own],
    ["sendVerification", !customer.email_verified],
    ["sendReset", true],
    ["cancelAtEnd", admin && paid && !customer.subscription.cancel_at_period_end],
    ["cancelNow", admin && paid],
    ["role", admin && !own],
    ["clearDisputeHold", admin && !own && customer.dispute_hold_at !== null],
    ["disable", admin && !own && customer.disabled_at === null],
    ["enable", admin && !own && customer.disabled_at !== null],
  ];
  return list.filter(([, shown]) => shown).map(([kind]) => kind);
}

/** A whole or decimal number of credits with at most three decimals, above 0; else null. */
export function parseCredits(text: string): number | null {
  // Number() reads an empty or blank text as 0, which is refused with the rest.
  const value = Number(text.replace(",", "."));
  if (!Number.isFinite(value) || value <= 0) return null;
  return Math.round(value * 1000) === value * 1000 ? value : null;
}

/**
 * A dialog's problem: its message, and the field it is about (the name of the dialog's input, as
 * the API names the body's field: "amount", "expires_at", "note", "reason"), or null for the
 * action as a whole (a 403 or 409, no answer).
 */
export interface FieldProblem {
  field: string | null;
  message: string;
}

/**
 * The field a refusal names, when it is one of `fields`: a 422's first error's `loc` names the
 * body's field after "body" (["body", "amount"]); anything else is about the action as a whole (null).
 */
export function refusedField(detail: unknown, fields: readonly string[]): string | null {
  if (!Array.isArray(detail)) return null;
  const loc = (detail[0] as { loc?: unknown } | undefined)?.loc;
  if (!Array.isArray(loc) || loc[0] !== "body") return null;
  return fields.find((field) => field === loc[1]) ?? null;
}

/**
 * What is wrong with the credits typed into a grant or a take-back, in words that are true of what
 * was typed; null when `parseCredits` reads it. The dialogs show it beside the Credits field. A grant
 * is of more than 0 credits: taking credits back is its own action (Take credits back, admins), so a
 * minus sign in a grant is refused, not turned into a take-back.
 */
export function creditsProblem(text: string, kind: "grant" | "takeBack"): string | null {
  const typed = text.trim().replace(",", ".");
  if (typed === "") return ADMIN_TEXT.amountRequired;
  const value = Number(typed);
  if (!Number.isFinite(value)) return CREDIT_PROBLEMS.notANumber;
  if (value <= 0)
    return kind === "grant" ? CREDIT_PROBLEMS.grantAboveZero : CREDIT_PROBLEMS.takeBackAboveZero;
  if (parseCredits(typed) === null) return CREDIT_PROBLEMS.decimals;
  return value > OPERATOR_CREDITS_MAX ? ADMIN_TEXT.amountTooLarge : null;
}

/**
 * A calendar day typed as the console writes days (2026-11-26) that exists on the calendar, as the
 * last second of that day in Berlin (a grant's expiry: the day the customer's pages and mails then
 * give, isoDay); else null. Typed, not picked: a date picker shows the browser's locale
 * (11/26/2026) while every other date in the console is ISO.
 */
export function parseIsoDayEnd(text: string): string | null {
  const day = text.trim();
  // Parsed, then written back: only a day that reads the same both ways is one (2026-02-30 and
  // 2026-1-5 are not), and anything that is no day at all does not parse.
  const utcEnd = new Date(`${day}T23:59:59Z`);
  if (Number.isNaN(utcEnd.getTime()) || utcEnd.toISOString().slice(0, 10) !== day) return null;
  // Berlin is 1 hour ahead of UTC in winter and 2 in summer: the day's last second is the one
  // whose next second is already the next day there.
  for (const hours of [1, 2]) {
    const end = new Date(utcEnd.getTime() - hours * 3_600_000);
    if (isoDay(end.toISOString()) === day && isoDay(new Date(end.getTime() + 1000).toISOString()) !== day) {
      return end.toISOString();
    }
  }
  return null;
}

/** An amount of money typed in major units ("5.95", "5,95") as minor units, above 0; else null. */
export function parseMoney(text: string): number | null {
  const trimmed = text.trim().replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed)) return null;
  const cents = Math.round(Number(trimmed) * 100);
  return cents > 0 ? cents : null;
}

/** What is left to refund of a payment, or 0 when it cannot be refunded (failed, disputed, refunded). */
export function refundable(payment: { status: string; total: number; refunded: number }): number {
  // A payment turns "refunded" only when all of it went back (server/domain/reversal.ts).
  if (payment.status !== "paid") return 0;
  return Math.max(0, payment.total - payment.refunded);
}

/**
 * Whether the provider's answer to a refund says money goes back: Stripe answers a refund
 * "succeeded" or "pending" (and "requires_action" for some methods, which completes later), and
 * "failed" or "canceled" when none does; the local checkout answers "succeeded".
 */
export function refundMade(status: string): boolean {
  return status !== "failed" && status !== "canceled";
}

/** Whether a payment as the API lists it already counts a refund that leaves `refunded` refunded. */
export function refundRecorded(payment: { refunded: number }, refunded: number): boolean {
  return payment.refunded >= refunded;
}

/**
 * The refunds asked from the console that `payments` (as the API lists them) do not count yet:
 * payment id → how much of it is refunded once the provider's charge.refunded is recorded
 * (server/domain/reversal.ts). The console shows such a payment as listed, with "Refund requested"
 * beside its status and no Refund button, and never as refunded before the API says so. A payment
 * the list does not hold is left out.
 */
export function refundsNotRecorded(
  payments: readonly { id: string; refunded: number }[],
  asked: ReadonlyMap<string, number>,
): Record<string, number> {
  const waiting: Record<string, number> = {};
  for (const payment of payments) {
    const refunded = asked.get(payment.id);
    if (refunded !== undefined && !refundRecorded(payment, refunded)) waiting[payment.id] = refunded;
  }
  return waiting;
}
