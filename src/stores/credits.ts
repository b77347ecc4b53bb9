// What the signed-in user's balance is made of (/profile): the ledger's live grants, merged and in
// spend order. Loaded when /profile shows the balance, and again whenever the balance changes.
import { atom } from "nanostores";
import { apiRequest } from "../lib/api-client.ts";
import { type CreditPart, creditBreakdown } from "../lib/credit-breakdown.ts";
import { serverClockOffset } from "../lib/server-clock.ts";

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
    // Live by the server's clock, as the balance beside it is (a visitor's clock may be wrong).
    const now = new Date(Date.now() + serverClockOffset(ledger.as_of));
    $creditBreakdown.set({ status: "ready", parts: creditBreakdown(ledger.data, now), balance });
  } catch {
    $creditBreakdown.set({ status: "failed", parts, balance });
  }
}
