// /profile/billing/invoice?id=… (guarded like /profile): one invoice as a printable document, with
// its number and date, seller and buyer, the line, net, VAT (rate and amount), total and currency,
// and the reverse-charge note where it applies. Our own invoices download as a PDF the API renders
// from the same data and words, and print (the site's top bar and footer are hidden in print). A
// Stripe invoice links to Stripe's own page and PDF.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import { documentTitle, partyLines, vatRateLabel } from "../../../contract/invoice-document.ts";
import { issuedNoInvoice } from "../../../contract/invoice-status.ts";
import { returnedParts } from "../../../contract/invoice-text.ts";
import type { Invoice, InvoiceParty } from "../../../contract/invoices.ts";
import { formatMoney } from "../../../contract/money.ts";
import { readStoredToken } from "../../lib/auth-storage.ts";
import { BILLING_TEXT } from "../../lib/billing-text.ts";
import { isoDay } from "../../lib/format-date.ts";
import { initSession } from "../../stores/auth.ts";
import { $invoice, downloadInvoicePdf, loadInvoice } from "../../stores/billing-history.ts";
import { notify } from "../../stores/toast.ts";
import { RouteGuard } from "../auth/RouteGuard.tsx";

const T = BILLING_TEXT;

/** Why a payment not made has no invoice, by its status (any other: a failed payment's words). */
const NO_INVOICE_NOTICE: Partial<Record<Invoice["status"], string>> = {
  not_charged: T.notChargedInvoice,
  authentication_required: T.authenticationInvoice,
  cancelled: T.cancelledInvoice,
};

const param = (name: string) =>
  typeof location === "undefined" ? "" : (new URLSearchParams(location.search).get(name) ?? "");
const invoiceId = () => param("id");
/**
 * The team organisation a receipt mail's link names (`org`): its invoice is read in it, whichever
 * organisation the portal has chosen, and the choice stays as it is. None: the chosen one's.
 */
const invoiceOrg = () => param("org") || undefined;

let firstLoad: Promise<void> | undefined;
if (typeof document !== "undefined") {
  void initSession();
  if (readStoredToken() && invoiceId()) firstLoad = loadInvoice(invoiceId(), invoiceOrg());
}

function Party({ title, party }: { title: string; party: InvoiceParty }) {
  return (
    <div>
      <h2 className="text-xs font-semibold uppercase tracking-wide text-base-content/70">{title}</h2>
      <address className="mt-1 whitespace-pre-line text-sm not-italic">
        {partyLines(party).join("\n")}
        {party.vat_id && <span className="block">{T.vatIdLabel(party.vat_id)}</span>}
      </address>
    </div>
  );
}

/**
 * Downloads the invoice's PDF: busy while it comes, a toast if it fails. The usage page's CSV button
 * is the same pattern, kept apart on purpose: a component shared by the two pages becomes a chunk
 * of its own, 0.3 KB more on each (measured 2026-11-25: the usage page over its 150 KB budget then;
 * since UI_TEXT shrank, this page over the 82 KB line instead). Decision 008.
 */
function PdfButton({ invoice }: { invoice: Invoice }) {
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadInvoicePdf(invoice, invoiceOrg());
    } catch {
      notify("error", T.downloadFailed);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="btn btn-primary btn-sm" onClick={() => void download()} disabled={busy}>
      {busy ? T.downloading : T.downloadPdf}
    </button>
  );
}

/**
 * The static page is headed "Invoice"; a credit note's document renames the heading, the
 * breadcrumb and the tab, so that nothing calls it an invoice.
 */
function useDocumentTitle(invoice: Invoice): void {
  useEffect(() => {
    const title = documentTitle(invoice);
    if (title === T.invoiceTitle) return;
    for (const element of document.querySelectorAll("[data-document-title], [data-document-crumb]")) {
      element.textContent = title;
    }
    document.title = document.title.replace(T.invoiceTitle, title);
  }, [invoice]);
}

function Document({ invoice }: { invoice: Invoice }) {
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  useDocumentTitle(invoice);
  return (
    <article
      className="card border border-base-300 bg-base-100 print:border-0"
      data-invoice={invoice.id}
      data-credit-note={invoice.document === "credit_note" ? "" : undefined}
    >
      <div className="card-body gap-6">
        <header className="flex flex-wrap items-start justify-end gap-4">
          <dl className="grid grid-cols-[auto_auto] gap-x-4 text-sm">
            <dt className="font-medium">
              {invoice.document === "credit_note" ? T.creditNoteNumber : T.invoiceNumber}
            </dt>
            <dd className="font-mono" data-invoice-number>
              {invoice.number ?? "—"}
            </dd>
            <dt className="font-medium">{T.invoiceDate}</dt>
            <dd className="tabular-nums">{isoDay(invoice.date)}</dd>
            {invoice.refers_to && (
              <>
                <dt className="font-medium">{T.refersTo}</dt>
                <dd className="font-mono" data-refers-to>
                  {invoice.refers_to}
                </dd>
              </>
            )}
          </dl>
        </header>
        {issuedNoInvoice(invoice.status) && (
          <p role="alert" className="alert alert-warning">
            {NO_INVOICE_NOTICE[invoice.status] ?? T.failedInvoice}
          </p>
        )}
        <div className="grid gap-6 sm:grid-cols-2">
          <Party title={T.seller} party={invoice.seller} />
          <Party title={T.buyer} party={invoice.buyer} />
        </div>
        {/* Two columns, so the document fits a phone as well as a printed page. */}
        <table className="table table-sm" data-invoice-lines>
          <thead>
            <tr>
              <th scope="col">{T.description}</th>
              <th scope="col" className="text-right">
                {T.amount}
              </th>
            </tr>
          </thead>
          <tbody>
            {invoice.lines.map((line) => (
              <tr key={line.description}>
                <th scope="row" className="font-normal">
                  {line.description}
                  <span className="block text-xs text-base-content/70 tabular-nums">
                    {T.lineQuantity(line.quantity, money(line.unit_amount))}
                  </span>
                </th>
                <td className="text-right align-top tabular-nums">{money(line.amount)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot className="text-base-content">
            <tr>
              <th scope="row" className="text-right font-normal">
                {T.subtotal}
              </th>
              <td className="text-right tabular-nums">{money(invoice.net)}</td>
            </tr>
            <tr data-invoice-vat>
              <th scope="row" className="text-right font-normal">
                {T.vatLine(vatRateLabel(invoice.tax_rate, invoice.tax_treatment))}
              </th>
              <td className="text-right tabular-nums">{money(invoice.tax)}</td>
            </tr>
            <tr data-invoice-total>
              <th scope="row" className="text-right text-base">
                {T.grandTotal} ({invoice.currency.toUpperCase()})
              </th>
              <td className="text-right text-base font-bold tabular-nums">{money(invoice.total)}</td>
            </tr>
          </tfoot>
        </table>
        {invoice.note && (
          <p className="text-sm" data-invoice-note>
            {invoice.note}
          </p>
        )}
        {returnedParts(invoice, money).map((line) => (
          <p key={line} className="text-sm" data-invoice-returned>
            {line}
          </p>
        ))}
        <div className="flex flex-wrap gap-2 print:hidden">
          {/* While the bank waits for the customer: the payment's page, as Billing history's row
              links it (decision 048); the API gives no pay_url once it is paid or cancelled. */}
          {invoice.pay_url && (
            <a href={invoice.pay_url} className="btn btn-warning btn-sm" data-complete-payment>
              {T.completePayment}
            </a>
          )}
          {invoice.invoice_url ? (
            <a
              href={invoice.invoice_url}
              className="btn btn-primary btn-sm"
              target="_blank"
              rel="noopener noreferrer"
            >
              {T.stripeInvoice}
            </a>
          ) : (
            !issuedNoInvoice(invoice.status) && (
              <>
                <PdfButton invoice={invoice} />
                <button type="button" className="btn btn-outline btn-sm" onClick={() => window.print()}>
                  {T.print}
                </button>
              </>
            )
          )}
          {invoice.pdf_url && (
            <a
              href={invoice.pdf_url}
              className="btn btn-outline btn-sm"
              target="_blank"
              rel="noopener noreferrer"
            >
              {T.stripePdf}
            </a>
          )}
          <a href="/profile/billing" className="btn btn-ghost btn-sm">
            {T.backToBilling}
          </a>
        </div>
      </div>
    </article>
  );
}

function InvoiceView() {
  const state = useStore($invoice);
  useEffect(() => {
    if (firstLoad) return;
    const id = invoiceId();
    if (id) void loadInvoice(id, invoiceOrg());
    else $invoice.set({ status: "not_found" });
  }, []);
  switch (state.status) {
    case "loading":
      return (
        <p role="status" className="flex items-center gap-2 text-sm">
          <span className="loading loading-spinner" aria-hidden="true" />
          {T.invoiceLoading}
        </p>
      );
    case "not_found":
    case "failed":
      return (
        <div
          role="alert"
          className="alert alert-error"
          data-invoice-missing={state.status === "not_found" ? "" : undefined}
        >
          <span>{state.status === "not_found" ? T.invoiceNotFound : T.loadFailed}</span>
          <a href="/profile/billing" className="btn btn-sm">
            {T.backToBilling}
          </a>
        </div>
      );
    case "ready":
      return <Document invoice={state.invoice} />;
  }
}

export default function InvoiceDocument() {
  return <RouteGuard loadingMessage={T.invoiceLoading}>{() => <InvoiceView />}</RouteGuard>;
}
