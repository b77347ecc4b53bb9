// What the signed-in user's balance is made of (/profile): the ledger's live grants, merged and in
// spend order. Loaded when /profile shows the balance, and again whenever the balance changes.
import { atom } from "nanostores";
import { apiRequest } from "../lib/api-client.ts";
import { type CreditPart, creditBreakdown } from "../lib/credit-breakdown.ts";

export interface CreditBreakdownState {
  status: "loading" | "ready" | "failed";
  parts: readonly CreditPart[];
  /** The balance the parts were asked for (users/me's credit_balance at the time). */
  balance: number | null;
}

export const $creditBreakdown = atom<CreditBreakdownState>({ status: "loading", parts: [], balance: null });

/** Loads the parts of `balance`; a failure keeps what is shown and says so. */
export async function loadCreditBreakdown(balance: number): Promise<void> {
  const { parts } = $creditBreakdown.get();
  $creditBreakdown.set({ status: "loading", parts, balance });
  try {
    const ledger = await apiRequest("/v1/credits/ledger", "ledgerSchema", { auth: true });
    $creditBreakdown.set({ status: "ready", parts: creditBreakdown(ledger.data, new Date()), balance });
  } catch {
    $creditBreakdown.set({ status: "failed", parts, balance });
  }
}
