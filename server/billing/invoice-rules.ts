// The rules an invoice is written by: its number (one gap-free series per Berlin calendar year,
// "INV-2026-000001"; invoices.ts takes the next sequence under the counter row's lock) and the VAT
// treatment and rate its amounts show.
import { inBerlin } from "../domain/berlin-time.ts";
import { decideVat, type TaxTreatment, vatOf } from "../domain/vat.ts";
import type { PaymentFacts } from "./ports/events.ts";

/** The series an invoice issued at `at` belongs to: one per Berlin calendar year. */
export const seriesOf = (at: Date) => `INV-${inBerlin(at).year}`;

export const formatInvoiceNumber = (series: string, sequence: number) =>
  `${series}-${String(sequence).padStart(6, "0")}`;

/** The series a credit note issued at `at` belongs to: its own, gap-free, per Berlin calendar year. */
export const creditNoteSeriesOf = (at: Date) => `CN-${inBerlin(at).year}`;

/**
 * The net and VAT a refund reverses, in the invoice's proportions. Computed on the cumulative
 * refunded amount and differenced, so partial refunds that add up to the whole invoice reverse
 * exactly its net and its VAT, cent for cent, whatever the rounding of each part.
 */
export function creditNoteAmounts(
  invoice: { total: number; tax: number },
  refundedBefore: number,
  refundedAfter: number,
): { net: number; tax: number; total: number } {
  const taxUpTo = (refunded: number) =>
    invoice.total === 0 ? 0 : Math.round((refunded * invoice.tax) / invoice.total);
  const total = refundedAfter - refundedBefore;
  const tax = taxUpTo(refundedAfter) - taxUpTo(refundedBefore);
  return { net: total - tax, tax, total };
}

/**
 * The VAT treatment and rate the amounts show, decided as the checkout decides it; null when the
 * payment carries no buyer country (a payment made before VAT was collected) or when the provider's
 * tax does not match the rate (then the amounts stand on their own). A VAT ID gives reverse charge
 * only once confirmed (decision 031): charged VAT despite one, the buyer counts as a consumer.
 */
export function taxOfPayment(
  payment: Pick<PaymentFacts, "net" | "tax" | "reverseCharge"> & {
    buyer: Pick<PaymentFacts["buyer"], "country" | "vatId">;
  },
  sellerCountry: string,
  paidAt: Date,
): { treatment: TaxTreatment | null; rateBasisPoints: number | null } {
  const country = payment.buyer.country;
  if (!country) return { treatment: null, rateBasisPoints: null };
  const decide = (vatId: string | null) =>
    payment.reverseCharge
      ? { treatment: "reverse_charge" as const, rateBasisPoints: 0 }
      : decideVat({ sellerCountry, buyerCountry: country, vatId, at: paidAt });
  const matches = (d: { rateBasisPoints: number }) => vatOf(payment.net, d.rateBasisPoints) === payment.tax;
  const withVatId = decide(payment.buyer.vatId);
  const decision = matches(withVatId) ? withVatId : decide(null);
  if (!matches(decision)) return { treatment: null, rateBasisPoints: null };
  return { treatment: decision.treatment, rateBasisPoints: decision.rateBasisPoints };
}
