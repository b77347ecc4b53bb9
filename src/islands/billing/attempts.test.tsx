// Billing's "Recent automatic top-ups": the amount of each attempt, and none for one that charged
// nothing (declined or cancelled), as the billing history shows that payment's row.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ATTEMPT_STATES, type AutoTopUpAttempt } from "../../../contract/auto-top-up.ts";
import { NO_AMOUNT } from "../../lib/payment-status-text.ts";
import { Attempts, attemptChargedNothing } from "./AutoTopUpParts.tsx";

const attempt = (id: string, status: AutoTopUpAttempt["status"], cents: number): AutoTopUpAttempt => ({
  id,
  at: "2026-11-20T10:00:00.000Z",
  status,
  credits: 1000,
  amount: { amount: cents, currency: "eur" },
  invoice_number: null,
  invoice_id: null,
  invoice_url: null,
  detail: null,
  pay_url: null,
});

/** The markup of each attempt's row in the table and its card on a phone, by id. */
function rowsOf(attempts: AutoTopUpAttempt[]) {
  const html = renderToStaticMarkup(<Attempts attempts={attempts} linkInvoices />);
  const parts = (id: string) => html.split(`data-attempt="${id}"`).slice(1);
  return (id: string) => {
    const [card, row] = parts(id).map((part) => part.split("data-attempt=")[0] ?? "");
    return { card: card ?? "", row: row ?? "" };
  };
}

describe("Billing's recent automatic top-ups", () => {
  it("take an attempt that was declined or cancelled to have charged nothing, as its billing history row", () => {
    expect(ATTEMPT_STATES.filter((status) => attemptChargedNothing({ status }))).toEqual([
      "failed",
      "cancelled",
    ]);
  });

  it("shows no amount for a declined or cancelled attempt, which charged nothing", () => {
    const rows = rowsOf([
      attempt("paid", "paid", 1234),
      attempt("declined", "failed", 2345),
      attempt("cancelled", "cancelled", 3456),
      attempt("waiting", "authentication_required", 4567),
      attempt("processing", "processing", 5678),
    ]);
    const noAmount = `<span class="sr-only">${NO_AMOUNT}</span>`;
    for (const [id, amount] of [
      ["paid", "€12.34"],
      ["waiting", "€45.67"],
      ["processing", "€56.78"],
    ] as const) {
      for (const part of Object.values(rows(id))) {
        expect(part, id).toContain(amount);
        expect(part, id).not.toContain(noAmount);
      }
    }
    for (const [id, amount] of [
      ["declined", "€23.45"],
      ["cancelled", "€34.56"],
    ] as const) {
      for (const part of Object.values(rows(id))) {
        expect(part, id).not.toContain(amount);
        expect(part, id).toContain(noAmount);
      }
    }
  });
});
