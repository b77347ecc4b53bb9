// /profile/billing (guarded like /profile): every payment with its net, VAT, total, status and
// invoice; the billing details on file; and the button to the provider's page for changing the card
// (Stripe's Billing Portal, or the local stand-in's card page), which pays a failed renewal at once.
import { useStore } from "@nanostores/react";
import { lazy, Suspense, useEffect, useState } from "react";
import type { User } from "../../../contract/account.ts";
import { seesBilling } from "../../../contract/account-area.ts";
import { vatRateLabel } from "../../../contract/invoice-document.ts";
import type { InvoiceSummary } from "../../../contract/invoices.ts";
import { formatMoney } from "../../../contract/money.ts";
import { onDisputeHold } from "../../lib/account-view.ts";
import { chosenOrganization, readStoredToken } from "../../lib/auth-storage.ts";
import { BILLING_TEXT, chargedNothing, statusNote } from "../../lib/billing-text.ts";
import { isoDay } from "../../lib/format-date.ts";
import { historyRowLink } from "../../lib/invoice-view.ts";
import { UI_TEXT } from "../../lib/ui-text.ts";
import { initSession } from "../../stores/auth.ts";
import { $billingHistory, loadBillingHistory, openPaymentMethodPage } from "../../stores/billing-history.ts";
import { notify } from "../../stores/toast.ts";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { BillingDetailsCard } from "./BillingDetailsCard.tsx";
import { InvoiceAnchor } from "./InvoiceAnchor.tsx";
import { NoAmount } from "./NoAmount.tsx";

const T = BILLING_TEXT;

// Auto top-up (AUTO-TOP-UP.md "Pages") is its own chunk, loaded once the details show that the
// caller may see billing: its form, consent and dialogs stay out of the page's first load.
const AutoTopUp = lazy(() => import("../billing/AutoTopUp.tsx"));
// A dispute hold's alert, /profile's: only a held organisation's page loads it.
const DisputeHoldAlert = lazy(() => import("../profile/DisputeHoldAlert.tsx"));

// Ask for the session and the history at once, before React hydrates (as /profile/usage does), for
// a personal account, which always bills itself. With an organisation chosen the role decides, and
// it is known once the session is: a developer or a manager would only be answered 403.
let firstLoad: Promise<void> | undefined;
if (typeof document !== "undefined") {
  void initSession();
  if (readStoredToken() && chosenOrganization() === null) firstLoad = loadBillingHistory();
}

/** What a role without billing sees instead of the page (the API would refuse it with 403). */
function NotForRole() {
  return (
    <div role="status" className="alert alert-info" data-billing-forbidden>
      <span>{T.billingNotForRole}</span>
    </div>
  );
}

const STATUS_BADGE: Record<InvoiceSummary["status"], string> = {
  paid: "badge-success",
  failed: "badge-error",
  not_charged: "badge-ghost",
  // As Billing's "Recent automatic top-ups" colours the same payment.
  authentication_required: "badge-warning",
  cancelled: "badge-ghost",
  refunded: "badge-warning",
  disputed: "badge-warning",
  dispute_lost: "badge-warning",
};

/**
 * A row's invoice link; without one, "None" (on a phone's card, where no column head names it,
 * "Invoice: None"). A payment the bank waits to have confirmed offers its payment page, as auto
 * top-up's "Complete payment" does, and its own page beside it, as other rows do.
 */
function InvoiceCell({ row, labelled = false }: { row: InvoiceSummary; labelled?: boolean }) {
  const link = historyRowLink(row);
  if (!link)
    return (
      <span className="text-base-content/60">{labelled ? `${T.invoice}: ${T.noInvoice}` : T.noInvoice}</span>
    );
  const anchor = (
    <InvoiceAnchor link={link}>
      {row.pay_url ? T.viewPayment : `${T.viewInvoice}${row.number ? ` ${row.number}` : ""}`}
    </InvoiceAnchor>
  );
  if (!row.pay_url) return anchor;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-3 gap-y-1">
      <a href={row.pay_url} className="btn btn-warning btn-xs" data-complete-payment-row={row.id}>
        {T.completePayment}
      </a>
      {anchor}
    </span>
  );
}

/**
 * A row's amount: a credit note's as money paid back ("−€5.95"); none (a dash, read out as
 * "none") for a payment that moved no money (held back, declined or cancelled), whose pack price
 * would read as if it had.
 */
function amountOf(row: InvoiceSummary, cents: number) {
  if (chargedNothing(row)) return <NoAmount />;
  const money = formatMoney(cents, row.currency);
  return row.document === "credit_note" && cents > 0 ? `−${money}` : money;
}

/** The VAT rate beside a row's VAT, unless the row shows no amounts. */
const rateOf = (row: InvoiceSummary) =>
  chargedNothing(row) ? "" : vatRateLabel(row.tax_rate, row.tax_treatment);

function StatusBadge({ row }: { row: InvoiceSummary }) {
  const creditNote = row.document === "credit_note";
  return (
    <>
      <span
        className={`badge badge-sm whitespace-nowrap ${creditNote ? "badge-info" : STATUS_BADGE[row.status]}`}
      >
        {creditNote ? T.creditNoteLabel : T.statusLabels[row.status]}
      </span>
      {row.refunded > 0 && row.refunded < row.total && (
        <span className="block text-xs">{T.refundedPart(formatMoney(row.refunded, row.currency))}</span>
      )}
    </>
  );
}

/** What a status means where its badge alone would mislead: a dispute's, a payment that moved no money. */
function StatusNote({ row, className }: { row: InvoiceSummary; className: string }) {
  const note = statusNote(row);
  if (!note) return null;
  return (
    <p
      className={`text-xs ${className}`}
      data-status-note={row.status}
      data-disputed-note={row.status === "disputed" ? "" : undefined}
    >
      {note}
    </p>
  );
}

/** A phone's history: one card per payment (seven columns do not fit 390 px). */
function HistoryList({ rows }: { rows: readonly InvoiceSummary[] }) {
  return (
    <ul className="flex flex-col gap-3 sm:hidden" data-billing-history-list>
      {rows.map((row) => (
        <li
          key={row.id}
          className="rounded-box border border-base-300 p-4"
          data-invoice-card={row.id}
          data-status={row.status}
        >
          <div className="flex items-start justify-between gap-3">
            <p className="font-medium">{row.description}</p>
            <StatusBadge row={row} />
          </div>
          <p className="text-sm text-base-content/70 tabular-nums">{isoDay(row.date)}</p>
          <StatusNote row={row} className="mt-2" />
          <dl className="mt-2 grid grid-cols-[1fr_auto] gap-x-4 text-sm tabular-nums">
            <dt>{T.net}</dt>
            <dd className="text-right">{amountOf(row, row.net)}</dd>
            <dt>
              {T.vat} {rateOf(row)}
            </dt>
            <dd className="text-right">{amountOf(row, row.tax)}</dd>
            <dt className="font-semibold">{T.total}</dt>
            <dd className="text-right font-semibold">{amountOf(row, row.total)}</dd>
          </dl>
          <p className="mt-2 text-sm">
            <InvoiceCell row={row} labelled />
          </p>
        </li>
      ))}
    </ul>
  );
}

function HistoryTable({ rows }: { rows: readonly InvoiceSummary[] }) {
  return (
    <div className="hidden overflow-x-auto sm:block">
      <table className="table table-sm" data-billing-history>
        <caption className="sr-only">{T.historyCaption}</caption>
        <thead>
          <tr>
            <th scope="col">{T.date}</th>
            <th scope="col">{T.description}</th>
            <th scope="col" className="text-right">
              {T.net}
            </th>
            <th scope="col" className="text-right">
              {T.vat}
            </th>
            <th scope="col" className="text-right">
              {T.total}
            </th>
            <th scope="col">{T.status}</th>
            <th scope="col">{T.invoice}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-invoice-row={row.id} data-status={row.status}>
              <td className="whitespace-nowrap tabular-nums">{isoDay(row.date)}</td>
              <th scope="row" className="font-normal">
                {row.description}
              </th>
              <td className="text-right tabular-nums">{amountOf(row, row.net)}</td>
              <td className="text-right tabular-nums">
                {amountOf(row, row.tax)}
                <span className="block text-xs text-base-content/70">{rateOf(row)}</span>
              </td>
              <td className="text-right font-semibold tabular-nums">{amountOf(row, row.total)}</td>
              <td>
                <StatusBadge row={row} />
                <StatusNote row={row} className="mt-1 max-w-48" />
              </td>
              <td className="whitespace-nowrap">
                <InvoiceCell row={row} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PaymentMethodCard({ canUpdate }: { canUpdate: boolean }) {
  const [busy, setBusy] = useState(false);
  const open = async () => {
    setBusy(true);
    try {
      await openPaymentMethodPage();
    } catch {
      notify("error", T.portalFailed);
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="payment-method" className="card border border-base-300 bg-base-100">
      <div className="card-body gap-3">
        <h2 id="payment-method" className="card-title text-lg">
          {T.paymentMethodTitle}
        </h2>
        <p className="text-sm">{canUpdate ? T.paymentMethodBody : T.paymentMethodNone}</p>
        {canUpdate && (
          <div>
            <button
              type="button"
              className="btn btn-primary btn-sm"
              onClick={() => void open()}
              disabled={busy}
              data-update-payment-method
            >
              {busy ? T.opening : T.updatePaymentMethod}
            </button>
          </div>
        )}
      </div>
    </section>
  );
}

/** Where auto top-up comes, while its code and answer load: nothing below it moves much. */
function AutoTopUpPlaceholder() {
  return <div className="card min-h-72 border border-base-300 bg-base-100" aria-hidden="true" />;
}

/** `held`: the organisation is on a dispute hold (HoldNotice's alert): auto top-up says what it means there. */
function BillingView({ held }: { held: boolean }) {
  const state = useStore($billingHistory);
  useEffect(() => {
    if (!firstLoad) void loadBillingHistory();
  }, []);
  const { invoices } = state;
  const failedRenewal = invoices.find((row) => row.kind === "renewal")?.status === "failed";
  return (
    <div className="flex flex-col gap-8" data-billing data-status={state.status}>
      {state.status === "failed" && (
        <div role="alert" className="alert alert-error">
          <span>{T.loadFailed}</span>
          <button type="button" className="btn btn-sm" onClick={() => void loadBillingHistory()}>
            {T.retry}
          </button>
        </div>
      )}
      {/* The role changed since the session was read: the API said so. */}
      {state.status === "forbidden" && <NotForRole />}
      {state.status === "loading" && invoices.length === 0 && (
        <p role="status" className="flex items-center gap-2 text-sm">
          <span className="loading loading-spinner" aria-hidden="true" />
          {T.loading}
        </p>
      )}
      {failedRenewal && (
        <div role="alert" className="alert alert-warning" data-failed-renewal>
          <span>{T.failedNotice}</span>
        </div>
      )}
      {state.details && (
        <div className="grid gap-4 md:grid-cols-2">
          <BillingDetailsCard details={state.details} />
          <PaymentMethodCard canUpdate={state.details.can_update_payment_method} />
        </div>
      )}
      {/* The details answer only owners and billing members (403 for other roles), as auto top-up's do. */}
      {state.details && (
        <Suspense fallback={<AutoTopUpPlaceholder />}>
          <AutoTopUp held={held} />
        </Suspense>
      )}
      {/* Nothing to list for a role without billing: the note above says why. */}
      <section
        aria-labelledby="billing-history"
        className="flex flex-col gap-3"
        hidden={state.status === "forbidden"}
      >
        <h2 id="billing-history" className="text-lg font-semibold">
          {T.historyTitle}
        </h2>
        {state.status === "ready" && invoices.length === 0 ? (
          <div
            className="rounded-box border border-dashed border-base-300 p-6 text-center"
            data-billing-empty
          >
            <h3 className="text-base font-semibold">{T.emptyTitle}</h3>
            <p className="mt-2 text-sm text-base-content/80">{T.emptyBody}</p>
            {/* A subscriber (say, one whose payments came before the history existed) has nothing to buy here. */}
            {!state.details?.can_update_payment_method && (
              <a href="/plans" className="btn btn-primary btn-sm mt-4">
                {UI_TEXT.buySubscription}
              </a>
            )}
          </div>
        ) : (
          invoices.length > 0 && (
            <>
              <HistoryList rows={invoices} />
              <HistoryTable rows={invoices} />
            </>
          )
        )}
      </section>
    </div>
  );
}

/**
 * The dispute hold, first on the page, where someone about to pay reads it: the keys are refused
 * (in /profile's words), and what paying does meanwhile (checkouts are not refused on hold).
 */
function HoldNotice({ user, contact }: { user: User; contact: string }) {
  if (!onDisputeHold(user)) return null;
  const team = user.organization?.personal === false;
  return (
    <Suspense>
      <DisputeHoldAlert
        team={team}
        contact={contact}
        className="mb-8"
        paying={seesBilling(user.organization)}
      />
    </Suspense>
  );
}

/** `contact`: the support contact page (site-links.yaml's "contact", as the footer links it). */
export default function BillingHistory({ contact }: { contact: string }) {
  return (
    <RouteGuard loadingMessage={T.loading}>
      {(user) => (
        <>
          <HoldNotice user={user} contact={contact} />
          {seesBilling(user.organization) ? <BillingView held={onDisputeHold(user)} /> : <NotForRole />}
        </>
      )}
    </RouteGuard>
  );
}
