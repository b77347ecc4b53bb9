// The operator console's state: the customer search, the customer page (account, ledger,
// payments, usage, audit trail) and the audit log page, with the actions that change a customer.
// Each action reloads the customer page from the server, so what staff see is what the API says;
// a refund, which the API records only when the provider's event comes back, is shown as
// requested beside the payment as listed until then (or until the page stops reading again).
import { atom } from "nanostores";
import type {
  AdminLedgerEntry,
  AdminPayment,
  AuditEntryView,
  Customer,
  CustomerRow,
  MetricsView,
  VatReportView,
} from "../../contract/admin.ts";
import type { CustomerOrg } from "../../contract/admin-orgs.ts";
import type { UsageRow } from "../../contract/usage.ts";
import { refundMade, refundRecorded, refundsNotRecorded } from "../lib/admin-actions.ts";
import { apiRequest, asApiError, saveDownload } from "../lib/api-client.ts";
import { fieldErrorsFrom422 } from "../lib/error-messages.ts";
import { localDayStart } from "../lib/format-date.ts";
import { presetRange } from "../lib/usage-view.ts";

type Status = "idle" | "loading" | "ready" | "failed";

// ---- search ----

export interface SearchState {
  status: Status;
  q: string;
  rows: readonly CustomerRow[];
  nextCursor: string | null;
}

export const $customerSearch = atom<SearchState>({ status: "idle", q: "", rows: [], nextCursor: null });

/** Searches (or, with `more`, reads the next page of the same search). */
export async function searchCustomers(q: string, more = false): Promise<void> {
  const before = $customerSearch.get();
  const cursor = more ? before.nextCursor : null;
  $customerSearch.set({ ...before, status: "loading", q, ...(more ? {} : { rows: [], nextCursor: null }) });
  const params = new URLSearchParams({ q, ...(cursor ? { cursor } : {}) });
  try {
    const page = await apiRequest(`/v1/admin/customers?${params}`, "customerSearchSchema", { auth: true });
    const rows = more ? [...before.rows, ...page.data] : page.data;
    $customerSearch.set({ status: "ready", q, rows, nextCursor: page.next_cursor });
  } catch {
    $customerSearch.set({ ...$customerSearch.get(), status: "failed" });
  }
}

// ---- one customer ----

export interface CustomerState {
  status: Status | "missing";
  customer: Customer | null;
  ledger: readonly AdminLedgerEntry[];
  ledgerCursor: string | null;
  payments: readonly AdminPayment[];
  usage: readonly UsageRow[];
  usageRange: { from: string; to: string };
  audit: readonly AuditEntryView[];
  auditCursor: string | null;
  /** The organisations the customer is a member of, with the role (the personal one first). */
  orgs: readonly CustomerOrg[];
  /**
   * The refunds asked from this page that the payments list does not count yet: payment id → how
   * much is refunded once recorded (refundsNotRecorded). Shown as "Refund requested", never as done.
   */
  pendingRefunds: Readonly<Record<string, number>>;
}

const NO_CUSTOMER: CustomerState = {
  status: "idle",
  customer: null,
  ledger: [],
  ledgerCursor: null,
  payments: [],
  usage: [],
  usageRange: presetRange("days30", new Date()),
  audit: [],
  auditCursor: null,
  orgs: [],
  pendingRefunds: {},
};

export const $customer = atom<CustomerState>(NO_CUSTOMER);

const customerPath = (id: string) => `/v1/admin/customers/${encodeURIComponent(id)}`;

/** Every part of the customer page as the API has it now, asked at once (one round trip's time). */
async function fetchCustomer(id: string): Promise<CustomerState> {
  const base = customerPath(id);
  const [customer, ledger, payments, usage, audit, orgs] = await Promise.all([
    apiRequest(base, "customerSchema", { auth: true }),
    apiRequest(`${base}/ledger`, "adminLedgerSchema", { auth: true }),
    apiRequest(`${base}/payments`, "adminPaymentListSchema", { auth: true }),
    // No range: the API's default, the last 30 days on the server's clock (the browser's may be off,
    // and billing:advance moves the server's); the answer says which days those are.
    apiRequest(`${base}/usage?group_by=day,feature`, "usageSchema", { auth: true }),
    apiRequest(`${base}/audit`, "auditPageSchema", { auth: true }),
    apiRequest(`${base}/organizations`, "customerOrgListSchema", { auth: true }),
  ]);
  return {
    status: "ready",
    customer,
    ledger: ledger.data,
    ledgerCursor: ledger.next_cursor,
    payments: payments.data,
    usage: usage.data,
    usageRange: { from: usage.from, to: usage.to },
    audit: audit.data,
    auditCursor: audit.next_cursor,
    orgs: orgs.data,
    pendingRefunds: {},
  };
}

/** Reads of the customer page, numbered in the order they were asked. */
let lastRead = 0;
/**
 * The number of the newest read the page shows (or whose failure it shows): an answer of an older
 * read arriving later is not shown, so the page never goes back to what it was. A read that failed
 * without being shown (a follow-up's) does not count, so it cannot hold back an older read's answer.
 */
let appliedRead = 0;
/** The customer the page was last asked to show: an answer about another one is not shown. */
let requestedCustomer: string | null = null;

/**
 * Reads the customer's page and shows it unless a newer read is shown already or another customer
 * was asked for meanwhile; `failed` says what a failure shows (nothing: the page stays as it is).
 */
async function readCustomer(id: string, failed: (error: unknown) => CustomerState | null): Promise<void> {
  const read = ++lastRead;
  const current = () => read > appliedRead && id === requestedCustomer;
  try {
    const fresh = await fetchCustomer(id);
    if (!current()) return;
    appliedRead = read;
    $customer.set(withPendingRefunds(fresh));
  } catch (error) {
    if (!current()) return;
    const shown = failed(error);
    if (shown === null) return;
    appliedRead = read;
    $customer.set(shown);
  }
}

/** Loads every part of the customer page at once (one round trip's time). */
export async function loadCustomer(id: string): Promise<void> {
  requestedCustomer = id;
  $customer.set({ ...$customer.get(), status: "loading" });
  await readCustomer(id, (error) => {
    const missing = (error as { status?: number }).status === 404;
    return { ...$customer.get(), status: missing ? "missing" : "failed" };
  });
}

/** The next page of the ledger or of the audit trail. */
export async function loadMore(part: "ledger" | "audit"): Promise<void> {
  const state = $customer.get();
  const id = state.customer?.id;
  const cursor = part === "ledger" ? state.ledgerCursor : state.auditCursor;
  if (!id || !cursor) return;
  const shownRead = appliedRead;
  const path = `${customerPath(id)}/${part}?cursor=${encodeURIComponent(cursor)}`;
  const merged =
    part === "ledger"
      ? await apiRequest(path, "adminLedgerSchema", { auth: true }).then((page) => (now: CustomerState) => ({
          ...now,
          ledger: [...now.ledger, ...page.data],
          ledgerCursor: page.next_cursor,
        }))
      : await apiRequest(path, "auditPageSchema", { auth: true }).then((page) => (now: CustomerState) => ({
          ...now,
          audit: [...now.audit, ...page.data],
          auditCursor: page.next_cursor,
        }));
  const now = $customer.get();
  if (now.customer?.id !== id) return;
  // A newer read was shown meanwhile (a refund's follow-up): its first page may end elsewhere, so
  // the next page is asked again after it rather than added to lines it no longer shows.
  if (appliedRead !== shownRead) return loadMore(part);
  // Another "Show more" added this page already.
  if ((part === "ledger" ? now.ledgerCursor : now.auditCursor) !== cursor) return;
  $customer.set(merged(now));
}

/** What an action dialog sends: the call, its body (with the reason), and what to say when done. */
export interface ActionCall {
  path: string;
  method?: "POST" | "DELETE";
  body: Record<string, unknown>;
}

/** Runs an action, then reloads the customer; throws ApiError when the server refuses it. */
export async function runCustomerAction(customerId: string, call: ActionCall): Promise<void> {
  await apiRequest(call.path, "anyAnswerSchema", {
    method: call.method ?? "POST",
    body: call.body,
    auth: true,
  });
  await loadCustomer(customerId);
}

// ---- refunds ----

/**
 * The refunds asked from this page that the provider has answered and the payments list may not
 * show yet: the payment's id, and how much of it is refunded once the refund is recorded. The API
 * records a refund when the provider's charge.refunded comes back (server/operations/refunds.ts),
 * a moment after it answered the console, or seconds after with Stripe: a list read in between
 * still has the payment as it was. Each is kept until a shown read lists it, or until the page
 * stops reading again (then the page shows what the API says, whatever became of the refund).
 */
const askedRefunds = new Map<string, { customerId: string; refunded: number }>();

/** A read as the page shows it: the refunds asked here it does not list yet; those it lists are forgotten. */
function withPendingRefunds(fresh: CustomerState): CustomerState {
  const customerId = fresh.customer?.id;
  const asked = new Map(
    [...askedRefunds]
      .filter(([, refund]) => refund.customerId === customerId)
      .map(([paymentId, refund]) => [paymentId, refund.refunded]),
  );
  const pendingRefunds = refundsNotRecorded(fresh.payments, asked);
  for (const payment of fresh.payments) {
    if (asked.has(payment.id) && !(payment.id in pendingRefunds)) askedRefunds.delete(payment.id);
  }
  return { ...fresh, pendingRefunds };
}

/** Whether the customer's page waits for a refund asked here to be recorded. */
const awaitsRefund = (customerId: string) =>
  [...askedRefunds.values()].some((asked) => asked.customerId === customerId);

/** Forgets the refunds asked of the customer's payments: the page shows the payments as listed. */
function dropAskedRefunds(customerId: string): void {
  for (const [paymentId, asked] of askedRefunds) {
    if (asked.customerId === customerId) askedRefunds.delete(paymentId);
  }
  const state = $customer.get();
  if (state.customer?.id === customerId && Object.keys(state.pendingRefunds).length > 0) {
    $customer.set({ ...state, pendingRefunds: {} });
  }
}

/**
 * How long after a refund the customer's page is read again while the list does not show it yet,
 * so the credit note, the credits taken back and the ledger line come without a reload (about 15 s
 * in all; the row says "Refund requested" meanwhile, and what the API says after the last).
 */
export const REFUND_FOLLOW_UP_MS: readonly number[] = [1000, 2000, 4000, 8000];

/** The follower of each customer's refunds: a later refund starts its schedule again. */
const followers = new Map<string, object>();

function followAskedRefunds(customerId: string): void {
  const follower = {};
  followers.set(customerId, follower);
  const current = () => followers.get(customerId) === follower;
  void (async () => {
    for (const wait of REFUND_FOLLOW_UP_MS) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (!current()) return;
      // Another customer asked for, or every refund shown: nothing to follow.
      if (requestedCustomer !== customerId || !awaitsRefund(customerId)) break;
      // A failed read leaves the page as it is; the next one, or a reload, tries again.
      await readCustomer(customerId, () => null);
      if (!current()) return;
    }
    followers.delete(customerId);
    dropAskedRefunds(customerId);
  })();
}

/**
 * Refunds `payment` (all that is left when `amount` is absent), then shows it: "Refund requested"
 * in its row at once from the provider's answer, the rest of the page as the API has it, and the
 * page read again while the API has not recorded the refund. Throws ApiError when the server
 * refuses it.
 */
export async function refundPayment(
  customerId: string,
  payment: AdminPayment,
  request: { amount?: number | undefined; reason: string; idempotency_key: string },
): Promise<void> {
  const answer = await apiRequest(actionPath.refund(payment.id), "refundResultSchema", {
    method: "POST",
    body: request,
    auth: true,
  });
  if (refundMade(answer.status)) {
    // An earlier refund asked here and not recorded yet counts as made, as the server counts it.
    const before = Math.max(payment.refunded, askedRefunds.get(payment.id)?.refunded ?? 0);
    const refunded = Math.min(payment.total, before + (request.amount ?? payment.total));
    askedRefunds.set(payment.id, { customerId, refunded });
    // Started again now, before the read below: an earlier refund's follower ending meanwhile
    // would forget this refund with its own.
    followAskedRefunds(customerId);
    const state = $customer.get();
    if (state.customer?.id === customerId && !refundRecorded(payment, refunded)) {
      $customer.set({ ...state, pendingRefunds: { ...state.pendingRefunds, [payment.id]: refunded } });
    }
  }
  await loadCustomer(customerId);
}

export const actionPath = {
  credits: (id: string) => `${customerPath(id)}/credits`,
  disable: (id: string) => `${customerPath(id)}/disable`,
  enable: (id: string) => `${customerPath(id)}/enable`,
  clearDisputeHold: (id: string) => `${customerPath(id)}/dispute-hold/clear`,
  role: (id: string) => `${customerPath(id)}/role`,
  emails: (id: string) => `${customerPath(id)}/emails`,
  cancel: (id: string) => `${customerPath(id)}/subscription/cancel`,
  revokeKey: (keyId: string) => `/v1/admin/api-keys/${encodeURIComponent(keyId)}`,
  refund: (paymentId: string) => `/v1/admin/payments/${encodeURIComponent(paymentId)}/refund`,
};

// ---- the dashboard ----

export interface MetricsState {
  status: Status;
  metrics: MetricsView | null;
}

export const $metrics = atom<MetricsState>({ status: "idle", metrics: null });

/** The last 30 Berlin days (the API's default range). */
export async function loadMetrics(): Promise<void> {
  $metrics.set({ ...$metrics.get(), status: "loading" });
  try {
    $metrics.set({
      status: "ready",
      metrics: await apiRequest("/v1/admin/metrics", "metricsSchema", { auth: true }),
    });
  } catch {
    $metrics.set({ ...$metrics.get(), status: "failed" });
  }
}

// ---- the VAT report ----

export interface VatReportState {
  status: Status;
  quarter: string;
  report: VatReportView | null;
}

export const $vatReport = atom<VatReportState>({ status: "idle", quarter: "", report: null });

export async function loadVatReport(quarter: string): Promise<void> {
  $vatReport.set({ ...$vatReport.get(), status: "loading", quarter });
  try {
    const report = await apiRequest(
      `/v1/admin/reports/vat?quarter=${encodeURIComponent(quarter)}`,
      "vatReportSchema",
      {
        auth: true,
      },
    );
    $vatReport.set({ status: "ready", quarter, report });
  } catch {
    $vatReport.set({ ...$vatReport.get(), status: "failed" });
  }
}

export const downloadVatCsv = (quarter: string) =>
  saveDownload(`/v1/admin/reports/vat.csv?quarter=${encodeURIComponent(quarter)}`, `vat-${quarter}.csv`);

// ---- the audit log ----

export interface AuditFilter {
  actor: string;
  subject: string;
  action: string;
  from: string;
  to: string;
}

export interface AuditState {
  /** "invalid": the API refused a filter (an unknown name, a bad time), said in `fieldErrors`. */
  status: Status | "invalid";
  filter: AuditFilter;
  entries: readonly AuditEntryView[];
  nextCursor: string | null;
  /** The API's message per filter field for an "invalid" filter. */
  fieldErrors: Partial<Record<keyof AuditFilter, string>>;
}

export const EMPTY_AUDIT_FILTER: AuditFilter = { actor: "", subject: "", action: "", from: "", to: "" };

export const $auditLog = atom<AuditState>({
  status: "idle",
  filter: EMPTY_AUDIT_FILTER,
  entries: [],
  nextCursor: null,
  fieldErrors: {},
});

// A day in From or Before is the reader's day, as the rows' times are on their clock.
const filterQuery = (filter: AuditFilter) =>
  new URLSearchParams(
    Object.entries(filter)
      .filter(([, value]) => value.trim() !== "")
      .map(([key, value]) => [key, key === "from" || key === "to" ? localDayStart(value) : value]),
  );

export async function loadAuditLog(filter: AuditFilter, more = false): Promise<void> {
  const before = $auditLog.get();
  const params = filterQuery(filter);
  if (more && before.nextCursor) params.set("cursor", before.nextCursor);
  $auditLog.set({ ...before, status: "loading", filter, fieldErrors: {} });
  try {
    const page = await apiRequest(`/v1/admin/audit?${params}`, "auditPageSchema", { auth: true });
    const entries = more ? [...before.entries, ...page.data] : page.data;
    $auditLog.set({ status: "ready", filter, entries, nextCursor: page.next_cursor, fieldErrors: {} });
  } catch (error) {
    const fieldErrors = fieldErrorsFrom422(asApiError(error));
    $auditLog.set(
      Object.keys(fieldErrors).length > 0
        ? { status: "invalid", filter, entries: [], nextCursor: null, fieldErrors }
        : { ...$auditLog.get(), status: "failed" },
    );
  }
}

/** The filtered log as a CSV file, saved by the browser. */
export async function downloadAuditCsv(filter: AuditFilter): Promise<void> {
  await saveDownload(
    `/v1/admin/audit.csv?${filterQuery(filter)}`,
    `audit-log-${new Date().toISOString().slice(0, 10)}.csv`,
  );
}
