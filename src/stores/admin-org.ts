// The console's organisation page (/admin/orgs/{id}): the organisation, its members, ledger,
// payments, usage by member and audit trail, read together, and the actions that change it. Each
// action reloads the page from the server, so what staff see is what the API says.
import { atom } from "nanostores";
import type { AdminLedgerEntry, AdminPayment, AuditEntryView } from "../../contract/admin.ts";
import type { AdminOrg, AdminOrgMember, AdminOrgRow } from "../../contract/admin-orgs.ts";
import type { UsageRow } from "../../contract/usage.ts";
import { apiRequest } from "../lib/api-client.ts";
import type { ActionCall } from "./admin.ts";

export interface OrgSearchState {
  status: "idle" | "loading" | "ready" | "failed";
  q: string;
  rows: readonly AdminOrgRow[];
}

export const $orgSearch = atom<OrgSearchState>({ status: "idle", q: "", rows: [] });

/** GET /v1/admin/orgs?q=: the newest fifty that match, as the API answers. */
export async function searchOrgs(q: string): Promise<void> {
  $orgSearch.set({ ...$orgSearch.get(), status: "loading", q });
  try {
    const page = await apiRequest(`/v1/admin/orgs?${new URLSearchParams({ q })}`, "adminOrgSearchSchema", {
      auth: true,
    });
    // A later search wins over an earlier one still answering.
    if ($orgSearch.get().q === q) $orgSearch.set({ status: "ready", q, rows: page.data });
  } catch {
    if ($orgSearch.get().q === q) $orgSearch.set({ ...$orgSearch.get(), status: "failed" });
  }
}

export interface OrgPageState {
  status: "idle" | "loading" | "ready" | "failed" | "missing";
  org: AdminOrg | null;
  members: readonly AdminOrgMember[];
  ledger: readonly AdminLedgerEntry[];
  payments: readonly AdminPayment[];
  /** group_by=member over the last 30 days. */
  usage: readonly UsageRow[];
  audit: readonly AuditEntryView[];
}

const NO_ORG: OrgPageState = {
  status: "idle",
  org: null,
  members: [],
  ledger: [],
  payments: [],
  usage: [],
  audit: [],
};

export const $adminOrg = atom<OrgPageState>(NO_ORG);

export const orgPath = (id: string) => `/v1/admin/orgs/${encodeURIComponent(id)}`;

/** Loads every part of the organisation page at once. */
export async function loadAdminOrg(id: string): Promise<void> {
  $adminOrg.set({ ...$adminOrg.get(), status: "loading" });
  const base = orgPath(id);
  try {
    const [org, members, ledger, payments, usage, audit] = await Promise.all([
      apiRequest(base, "adminOrgSchema", { auth: true }),
      apiRequest(`${base}/members`, "adminOrgMemberListSchema", { auth: true }),
      apiRequest(`${base}/ledger`, "adminLedgerSchema", { auth: true }),
      apiRequest(`${base}/payments`, "adminPaymentListSchema", { auth: true }),
      // The API's default range: the last 30 days on the server's clock.
      apiRequest(`${base}/usage?group_by=member`, "usageSchema", { auth: true }),
      apiRequest(`${base}/audit`, "auditPageSchema", { auth: true }),
    ]);
    $adminOrg.set({
      status: "ready",
      org,
      members: members.data,
      ledger: ledger.data,
      payments: payments.data,
      usage: usage.data,
      audit: audit.data,
    });
  } catch (error) {
    const missing = (error as { status?: number }).status === 404;
    $adminOrg.set({ ...$adminOrg.get(), status: missing ? "missing" : "failed" });
  }
}

/** Runs an action on the organisation, then reloads it; throws ApiError when the server refuses it. */
export async function runOrgAction(orgId: string, call: ActionCall): Promise<void> {
  await apiRequest(call.path, "anyAnswerSchema", {
    method: call.method ?? "POST",
    body: call.body,
    auth: true,
  });
  await loadAdminOrg(orgId);
}

export const orgActionPath = {
  credits: (id: string) => `${orgPath(id)}/credits`,
  disable: (id: string) => `${orgPath(id)}/disable`,
  enable: (id: string) => `${orgPath(id)}/enable`,
  clearDisputeHold: (id: string) => `${orgPath(id)}/dispute-hold/clear`,
  cancel: (id: string) => `${orgPath(id)}/subscription/cancel`,
  owner: (id: string) => `${orgPath(id)}/owner`,
};
