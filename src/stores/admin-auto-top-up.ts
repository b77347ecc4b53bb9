// The console's view of an organisation's auto top-up (/admin/orgs/{id}): what the customer sees
// under Billing, read-only, and staff's "Turn off" with a reason (kept in the activity log).
import { atom } from "nanostores";
import type { AutoTopUp } from "../../contract/auto-top-up.ts";
import { apiRequest } from "../lib/api-client.ts";
import { loadAdminOrg, orgPath } from "./admin-org.ts";

export interface AdminAutoTopUpState {
  status: "idle" | "loading" | "ready" | "failed";
  orgId: string | null;
  data: AutoTopUp | null;
}

export const $adminAutoTopUp = atom<AdminAutoTopUpState>({ status: "idle", orgId: null, data: null });

const path = (orgId: string) => `${orgPath(orgId)}/auto-top-up`;

export async function loadAdminAutoTopUp(orgId: string): Promise<void> {
  const current = $adminAutoTopUp.get();
  $adminAutoTopUp.set({ status: "loading", orgId, data: current.orgId === orgId ? current.data : null });
  try {
    const data = await apiRequest(path(orgId), "autoTopUpSchema", { auth: true });
    $adminAutoTopUp.set({ status: "ready", orgId, data });
  } catch {
    $adminAutoTopUp.set({ ...$adminAutoTopUp.get(), status: "failed" });
  }
}

/**
 * POST .../auto-top-up/off {reason}, then reads the panel and the page again (the audit trail has
 * a new entry). Throws ApiError when refused (409, 422), for the dialog to show.
 */
export async function turnOffAutoTopUp(orgId: string, reason: string): Promise<void> {
  await apiRequest(`${path(orgId)}/off`, "anyAnswerSchema", { method: "POST", body: { reason }, auth: true });
  await Promise.all([loadAdminAutoTopUp(orgId), loadAdminOrg(orgId)]);
}
