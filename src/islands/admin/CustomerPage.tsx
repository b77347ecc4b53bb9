// /admin/customers/{id} (staff only): one prebuilt page that reads the id from the URL and shows
// the customer's account and the actions the viewer may take, then the credits and ledger,
// payments, usage, API keys and audit trail as tabs. A disabled account or an unverified address is
// said at the top.
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import type { User } from "../../../contract/account.ts";
import type { AdminPayment, Customer } from "../../../contract/admin.ts";
import { type ActionKind, availableActions, refundable } from "../../lib/admin-actions.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { readStoredToken } from "../../lib/auth-storage.ts";
import { DANGER } from "../../lib/danger-button.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { routeParam } from "../../lib/route-param.ts";
import { tokenRole } from "../../lib/token-expiry.ts";
import { dailyUsage } from "../../lib/usage-view.ts";
import { $customer, loadCustomer, loadMore } from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { DailyTable, UsageLegend } from "../usage/UsageParts.tsx";
import { AuditTrail } from "./AuditEntries.tsx";
import { Section } from "./ConsoleTable.tsx";
import { CustomerOrgs } from "./CustomerOrgs.tsx";
import { ApiKeys, CreditParts, Ledger, Overview, Payments } from "./CustomerSections.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { STAFF } from "./staff.ts";
import { type Tab, Tabs } from "./Tabs.tsx";

const inBrowser = typeof document !== "undefined";
const UsageChart = lazy(() => import("../usage/UsageChart.tsx"));
// The action dialogs load when staff first open one: most visits only read the page, and the
// dialogs (with their forms and rules) would take the page past its 100 KB budget.
const loadActions = () => import("./CustomerActions.tsx");
const CustomerActionDialog = lazy(() => loadActions().then((m) => ({ default: m.CustomerActionDialog })));
const RefundDialog = lazy(() => loadActions().then((m) => ({ default: m.RefundDialog })));
const RevokeKeyDialog = lazy(() => loadActions().then((m) => ({ default: m.RevokeKeyDialog })));
const T = ADMIN_PAGE_TEXT.customer;

/** The id in /admin/customers/{id}. */
const customerIdFromUrl = () => (inBrowser ? routeParam(location.pathname, "/admin/customers/") : "");

if (inBrowser) {
  void initSession();
  // Asked for before the account is loaded, so only when the token says staff (the guard sends
  // anyone else away; the server decides from the database either way).
  const id = customerIdFromUrl();
  const role = tokenRole(readStoredToken());
  if (id && (role === "support" || role === "admin")) void loadCustomer(id);
}

function Usage() {
  const state = useStore($customer);
  const usage = useMemo(
    () => dailyUsage(state.usage, state.usageRange.from, state.usageRange.to),
    [state.usage, state.usageRange],
  );
  if (state.usage.length === 0) return <p className="text-sm text-base-content/70">{T.emptyUsage}</p>;
  return (
    <div>
      <p className="mb-2 text-sm text-base-content/70">{T.usagePeriod}</p>
      <Suspense fallback={<div className="h-64 sm:h-80" />}>
        <UsageChart usage={usage} label={T.usageTable} manual={T.manual} />
      </Suspense>
      <UsageLegend usage={usage} />
      <DailyTable usage={usage} />
    </div>
  );
}

function MoreButton({ part }: { part: "ledger" | "audit" }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-outline btn-sm self-start"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        void loadMore(part).finally(() => setBusy(false));
      }}
    >
      {T.more}
    </button>
  );
}

const DANGEROUS = new Set<ActionKind>(["disable", "cancelNow", "takeBack"]);

/** The ledger's newest lines: enough to see what happened lately without pushing the rest away. */
const LEDGER_FIRST = 10;

/** The credits' parts, and the ledger collapsed to its last lines until asked for more. */
function CreditsPanel({ customer }: { customer: Customer }) {
  const state = useStore($customer);
  const [expanded, setExpanded] = useState(false);
  const lines = expanded ? state.ledger : state.ledger.slice(0, LEDGER_FIRST);
  const hidden = state.ledger.length - lines.length;
  return (
    <>
      <CreditParts customer={customer} />
      <h3 className="mt-4 font-semibold">{T.sections.ledger}</h3>
      <Ledger lines={lines} />
      {hidden > 0 ? (
        <div className="flex flex-wrap items-center gap-3">
          <button type="button" className="btn btn-outline btn-sm" onClick={() => setExpanded(true)}>
            {T.more}
          </button>
          <span className="text-sm text-base-content/70">{T.ledgerNewest(lines.length)}</span>
        </div>
      ) : (
        state.ledgerCursor && <MoreButton part="ledger" />
      )}
    </>
  );
}

function CustomerView({ viewer, customer }: { viewer: User; customer: Customer }) {
  const state = useStore($customer);
  const [action, setAction] = useState<ActionKind | null>(null);
  const [revoking, setRevoking] = useState<Customer["api_keys"][number] | null>(null);
  const [refunding, setRefunding] = useState<AdminPayment | null>(null);
  // Once a dialog was opened its code stays mounted, so closing it can finish as it should.
  const [dialogsUsed, setDialogsUsed] = useState(false);
  const anyOpen = action !== null || revoking !== null || refunding !== null;
  useEffect(() => {
    if (anyOpen) setDialogsUsed(true);
  }, [anyOpen]);
  const dialogsWanted = anyOpen || dialogsUsed;
  const mayRefund = viewer.role === "admin" && viewer.id !== customer.id;
  const actions = availableActions(viewer.role, viewer.id, customer);
  const S = T.sections;
  const tabs: Tab[] = [
    { id: "credits", label: S.credits, panel: <CreditsPanel customer={customer} /> },
    {
      id: "payments",
      label: S.payments,
      panel: (
        <Payments
          payments={state.payments}
          pendingRefunds={state.pendingRefunds}
          action={(p) =>
            // Not while a refund asked here is on its way: the server counts it as made already.
            mayRefund && refundable(p) > 0 && state.pendingRefunds[p.id] === undefined ? (
              <button
                type="button"
                className="btn btn-error btn-xs"
                onClick={() => setRefunding(p)}
                aria-label={`${ADMIN_PAGE_TEXT.actions.refund} ${p.invoice_number ?? p.description}`}
              >
                {ADMIN_PAGE_TEXT.actions.refund}
              </button>
            ) : null
          }
        />
      ),
    },
    { id: "usage", label: S.usage, panel: <Usage /> },
    { id: "keys", label: S.keys, panel: <ApiKeys customer={customer} onRevoke={setRevoking} /> },
    {
      id: "audit",
      label: S.audit,
      panel: (
        <>
          <AuditTrail entries={state.audit} />
          {state.auditCursor && <MoreButton part="audit" />}
        </>
      ),
    },
  ];
  return (
    <div className="flex flex-col gap-8" data-customer={customer.id}>
      <header className="flex flex-col gap-3">
        <a href="/admin/customers" className="link text-sm">
          ← {T.backToSearch}
        </a>
        <h2 className="text-2xl font-bold sm:text-3xl" data-customer-name>
          {customer.username}
          {customer.role !== "user" && (
            <span className="badge badge-info ml-2 align-middle">{customer.role}</span>
          )}
        </h2>
        {customer.disabled_at && (
          <p role="status" className="alert alert-error" data-disabled-banner>
            {T.disabledBanner(dayAndTime(customer.disabled_at) ?? "")}
          </p>
        )}
        {customer.dispute_hold_at && (
          <p role="status" className="alert alert-warning" data-dispute-hold-banner>
            {T.disputeHoldBanner(dayAndTime(customer.dispute_hold_at) ?? "")}
          </p>
        )}
        {!customer.email_verified && (
          <p role="status" className="alert alert-warning">
            {T.unverifiedBanner}
          </p>
        )}
      </header>
      <Section id="customer-actions" title={S.actions}>
        <div className="flex flex-wrap gap-2" data-customer-actions>
          {actions.map((kind) => (
            <button
              key={kind}
              type="button"
              className={`btn btn-sm btn-outline ${DANGEROUS.has(kind) ? DANGER : ""}`}
              onClick={() => setAction(kind)}
              data-action={kind}
            >
              {ADMIN_PAGE_TEXT.actions[kind]}
            </button>
          ))}
        </div>
      </Section>
      <Section id="customer-overview" title={S.overview}>
        <Overview customer={customer} />
      </Section>
      <CustomerOrgs orgs={state.orgs} />
      {/* The long parts one at a time: the page stays short, and each part is one click away. */}
      <Tabs label={T.partsLabel(customer.username)} tabs={tabs} />
      {dialogsWanted && (
        <Suspense fallback={null}>
          <CustomerActionDialog kind={action} customer={customer} onClose={() => setAction(null)} />
          <RevokeKeyDialog customerId={customer.id} apiKey={revoking} onClose={() => setRevoking(null)} />
          <RefundDialog customer={customer} payment={refunding} onClose={() => setRefunding(null)} />
        </Suspense>
      )}
    </div>
  );
}

function Loaded({ viewer }: { viewer: User }) {
  const state = useStore($customer);
  useEffect(() => {
    if (state.status === "idle") {
      const id = customerIdFromUrl();
      if (id) void loadCustomer(id);
    }
  }, [state.status]);
  if (state.status === "missing" || (inBrowser && !customerIdFromUrl())) {
    return (
      <p role="alert" className="alert alert-warning" data-customer-missing>
        {T.notFound}{" "}
        <a href="/admin/customers" className="link">
          {T.backToSearch}
        </a>
      </p>
    );
  }
  if (state.status === "failed") {
    return (
      <p role="alert" className="alert alert-error">
        {ADMIN_PAGE_TEXT.customers.failed}
      </p>
    );
  }
  if (!state.customer) {
    return (
      <p role="status" className="flex items-center gap-2">
        <span className="loading loading-spinner" aria-hidden="true" />
        {T.loading}
      </p>
    );
  }
  return <CustomerView viewer={viewer} customer={state.customer} />;
}

export default function CustomerPage() {
  return (
    <StaffGuard allowedRoles={STAFF} loadingMessage={T.loading}>
      {(viewer) => <Loaded viewer={viewer} />}
    </StaffGuard>
  );
}
