// /profile's low-balance alert setting: what the API has, loaded once, and saving a new one.
import { atom } from "nanostores";
import type { LowBalanceAlert } from "../../contract/alerts.ts";
import { apiRequest } from "../lib/api-client.ts";

const PATH = "/v1/users/me/low-balance-alert";

export type LowBalanceAlertState =
  | { status: "loading" | "failed"; threshold: null }
  | { status: "ready"; threshold: number | null };

export const $lowBalanceAlert = atom<LowBalanceAlertState>({ status: "loading", threshold: null });

export async function loadLowBalanceAlert(): Promise<void> {
  $lowBalanceAlert.set({ status: "loading", threshold: null });
  try {
    const { threshold } = await apiRequest(PATH, "lowBalanceAlertSchema", { auth: true });
    $lowBalanceAlert.set({ status: "ready", threshold });
  } catch {
    $lowBalanceAlert.set({ status: "failed", threshold: null });
  }
}

/** Saves the setting (null turns the alert off); throws ApiError on failure. */
export async function saveLowBalanceAlert(setting: LowBalanceAlert): Promise<number | null> {
  const { threshold } = await apiRequest(PATH, "lowBalanceAlertSchema", {
    method: "PUT",
    body: { ...setting },
    auth: true,
  });
  $lowBalanceAlert.set({ status: "ready", threshold });
  return threshold;
}
