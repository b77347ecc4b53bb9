// The local checkout's payment page of an auto top-up invoice, /_checkout/invoice/{id}: the
// stand-in for Stripe's hosted invoice page, where the customer completes a payment their bank
// wants confirmed (AUTO-TOP-UP.md, "When a charge fails"). "Confirm payment" is the simulated
// authentication: it pays the invoice on-session. The invoice id in the URL is the capability, as
// Stripe's hosted page URL is; the form carries nothing.
import { type Context, Hono } from "hono";
import { formatMoney } from "../../../contract/money.ts";
import type { LocalInvoiceRow } from "../../db/schema/index.ts";
import { invoiceNote } from "../../domain/vat.ts";
import { escapeHtml } from "../../mail/templates.ts";
import type { LocalProvider } from "../../payments/local/local-provider.ts";
import type { InvoicePage } from "../../payments/local/off-session-invoices.ts";
import { messagePage, page, vatLabelOf } from "./layout.ts";

export const INVOICE_TEXT = {
  title: "Confirm your payment",
  intro:
    "Your bank asks you to confirm this payment. This test page stands in for your bank's 3-D Secure page.",
  confirm: "Confirm payment",
  back: "Back to Billing",
  paid: "Paid. You can close this page.",
  void: "This payment is no longer needed.",
  expired: "This payment link has expired. Nothing was charged.",
  unavailable: "This payment cannot be completed here. Billing shows its state.",
  notFound: "This payment link does not exist.",
} as const;

function summary(inv: LocalInvoiceRow): string {
  const money = (amount: number) => escapeHtml(formatMoney(amount, inv.currency));
  const note = invoiceNote(inv.taxTreatment);
  return `<p>${escapeHtml(inv.description)}</p>
<table aria-label="Payment summary">
<tr><th scope="row">Net</th><td>${money(inv.net)}</td></tr>
<tr><th scope="row">${escapeHtml(vatLabelOf(inv.taxTreatment, inv.taxRateBasisPoints))}</th><td>${money(inv.tax)}</td></tr>
<tr class="total"><th scope="row">Total</th><td>${money(inv.total)}</td></tr>
</table>
${note ? `<p class="note">${escapeHtml(note)}</p>` : ""}`;
}

export function invoicePage(
  found: Extract<InvoicePage, { ok: true }>,
  seller: string,
  billingUrl: string,
): string {
  const inv = found.invoice;
  const back = `<a class="cancel" href="${escapeHtml(billingUrl)}">${escapeHtml(INVOICE_TEXT.back)}</a>`;
  const head = `<p class="hint" id="seller">${escapeHtml(seller)}</p>
<h1>${escapeHtml(INVOICE_TEXT.title)}</h1>`;
  if (found.state !== "payable") {
    const says = {
      paid: INVOICE_TEXT.paid,
      void: INVOICE_TEXT.void,
      expired: INVOICE_TEXT.expired,
      unavailable: INVOICE_TEXT.unavailable,
    }[found.state];
    return page(
      INVOICE_TEXT.title,
      `${head}\n${summary(inv)}\n<p id="payment-state" role="status">${escapeHtml(says)}</p>\n${back}`,
    );
  }
  return page(
    INVOICE_TEXT.title,
    `${head}
${summary(inv)}
<p>${escapeHtml(INVOICE_TEXT.intro)}</p>
<form method="post" action="/_checkout/invoice/${encodeURIComponent(inv.id)}">
<button type="submit">${escapeHtml(INVOICE_TEXT.confirm)}</button>
</form>
${back}`,
  );
}

/** A settled invoice's page is a normal answer (200); a link that no longer works is not. */
const STATUS: Record<Exclude<InvoicePage, { ok: false }>["state"], 200 | 409 | 410> = {
  payable: 200,
  paid: 200,
  void: 200,
  expired: 410,
  unavailable: 409,
};

export function invoicePageRoutes(deps: {
  provider: LocalProvider;
  sellerName: string;
  portalUrl: string;
  headers: Record<string, string>;
  /** Called after a payment: deliver its webhook events. */
  afterPayment: () => void;
}): Hono {
  const app = new Hono();
  const billingUrl = new URL("/profile/billing", deps.portalUrl).toString();
  const show = (c: Context, found: InvoicePage) => {
    if (!found.ok) return c.html(messagePage("Payment not found", INVOICE_TEXT.notFound), 404, deps.headers);
    return c.html(invoicePage(found, deps.sellerName, billingUrl), STATUS[found.state], deps.headers);
  };

  app.get("/invoice/:id", async (c) => show(c, await deps.provider.findInvoicePage(c.req.param("id"))));

  app.post("/invoice/:id", async (c) => {
    const id = c.req.param("id");
    const { page: after, paidNow } = await deps.provider.payOnPage(id);
    if (!paidNow) return show(c, after);
    deps.afterPayment();
    // Post/redirect/get: reloading the paid page shows it paid, and posts nothing again.
    return c.redirect(`/_checkout/invoice/${encodeURIComponent(id)}`, 303);
  });

  return app;
}
