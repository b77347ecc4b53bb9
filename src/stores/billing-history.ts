// /profile/billing and its invoice page: the billing history, the details on file, one invoice, and
// the way to the provider's page for changing the card. Failures keep what is shown and say so.
import { atom } from "nanostores";
import { invoicePdfName } from "../../contract/invoice-document.ts";
import type {
  BillingDetails,
  BillingDetailsInput,
  Invoice,
  InvoiceSummary,
} from "../../contract/invoices.ts";
import { apiRequest, asApiError, saveDownload } from "../lib/api-client.ts";

export interface BillingHistoryState {
  /** forbidden: the caller's role in the chosen organisation does not include its billing (403). */
  status: "loading" | "ready" | "failed" | "forbidden";
  invoices: readonly InvoiceSummary[];
  details: BillingDetails | null;
}

export const $billingHistory = atom<BillingHistoryState>({ status: "loading", invoices: [], details: null });

/** Loads the history and the details on file together (the page shows both at once). */
export async function loadBillingHistory(): Promise<void> {
  $billingHistory.set({ ...$billingHistory.get(), status: "loading" });
  try {
    const [list, details] = await Promise.all([
      apiRequest("/v1/billing/invoices", "invoiceListSchema", { auth: true }),
      apiRequest("/v1/billing/details", "billingDetailsSchema", { auth: true }),
    ]);
    $billingHistory.set({ status: "ready", invoices: list.data, details });
  } catch (error) {
    const forbidden = asApiError(error).status === 403;
    $billingHistory.set({ ...$billingHistory.get(), status: forbidden ? "forbidden" : "failed" });
  }
}

/**
 * Saves the organisation's billing details (PUT /v1/billing/details) and shows what the API now has
 * on file; throws ApiError on failure (a 422 names the fields: fieldErrorsFrom422).
 */
export async function saveBillingDetails(input: BillingDetailsInput): Promise<void> {
  const details = await apiRequest("/v1/billing/details", "billingDetailsSchema", {
    method: "PUT",
    body: { ...input, address: { ...input.address } },
    auth: true,
  });
  $billingHistory.set({ ...$billingHistory.get(), details });
}

/** Sends the browser to the provider's page for changing the card; throws ApiError on failure. */
export async function openPaymentMethodPage(): Promise<void> {
  const { url } = await apiRequest("/v1/billing-portal-session", "billingPortalSessionSchema", {
    method: "POST",
    auth: true,
  });
  window.location.assign(url);
}

export type InvoiceState =
  | { status: "loading" }
  | { status: "ready"; invoice: Invoice }
  | { status: "not_found" }
  | { status: "failed" };

export const $invoice = atom<InvoiceState>({ status: "loading" });

export async function loadInvoice(id: string, organization?: string): Promise<void> {
  $invoice.set({ status: "loading" });
  try {
    const invoice = await apiRequest(`/v1/billing/invoices/${encodeURIComponent(id)}`, "invoiceSchema", {
      auth: true,
      ...(organization ? { organization } : {}),
    });
    $invoice.set({ status: "ready", invoice });
  } catch (error) {
    $invoice.set({ status: asApiError(error).status === 404 ? "not_found" : "failed" });
  }
}

/** Saves the invoice's PDF, named after its number (our own invoices: Stripe's have Stripe's PDF). Throws ApiError on failure. */
export async function downloadInvoicePdf(
  invoice: Pick<Invoice, "id" | "number">,
  organization?: string,
): Promise<void> {
  await saveDownload(
    `/v1/billing/invoices/${encodeURIComponent(invoice.id)}/pdf`,
    invoicePdfName(invoice),
    organization ? { organization } : {},
  );
}
