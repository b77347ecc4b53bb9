// Parts of the Stripe invoices the local checkout sends, shared by both kinds, which Stripe builds
// alike: a subscription's (event-builders.ts) and an auto top-up's one-off invoice
// (one-off-invoice-events.ts). Their tax lines, amounts and one line.
import type { BuyerDetails } from "../../billing/ports/events.ts";
import type { TaxTreatment } from "../../domain/vat.ts";

/** Unix seconds, as Stripe's objects carry times. */
export type Seconds = number;

/** The VAT of one sale, as the local checkout charges it. */
export interface SaleTax {
  /** Minor units, on top of the net amount. */
  amount: number;
  rateBasisPoints: number;
  treatment: TaxTreatment;
  buyer: BuyerDetails;
}

/** Stripe's `taxability_reason` for each treatment. */
function taxabilityReason(treatment: TaxTreatment) {
  switch (treatment) {
    case "reverse_charge":
      return "reverse_charge" as const;
    case "outside_eu":
      return "not_subject_to_tax" as const;
    default:
      return "standard_rated" as const;
  }
}

/** Stripe's tax lines (of an invoice and of its line) for `tax` on `net`; none without tax. */
export function invoiceTaxLines(tax: SaleTax | undefined, net: number) {
  return tax
    ? [
        {
          amount: tax.amount,
          tax_behavior: "exclusive" as const,
          tax_rate_details: { tax_rate: `txr_${tax.treatment}_${tax.rateBasisPoints}` },
          taxability_reason: taxabilityReason(tax.treatment),
          taxable_amount: net,
          type: "tax_rate_details" as const,
        },
      ]
    : [];
}

/** An invoice's amounts for `net` plus `taxAmount`: no discounts or credits, paid in full or not at all. */
export function invoiceAmounts(net: number, taxAmount: number, paid: boolean) {
  const total = net + taxAmount;
  return {
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: paid ? total : 0,
    amount_remaining: paid ? 0 : total,
    subtotal: net,
    subtotal_excluding_tax: net,
    total,
    total_discount_amounts: [],
    total_excluding_tax: net,
    total_pretax_credit_amounts: [],
  };
}

/** An invoice's list of lines: one line, one of `priceId` for `net`, billing what `parent` names. */
export function invoiceLines<TParent>(line: {
  invoiceId: string;
  net: number;
  tax: SaleTax | undefined;
  currency: string;
  description: string;
  priceId: string;
  productId: string;
  period: { start: Seconds; end: Seconds };
  parent: TParent;
}) {
  const item = {
    id: `il_${line.invoiceId.replace(/^in_/, "")}`,
    object: "line_item" as const,
    amount: line.net,
    currency: line.currency,
    description: line.description,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: line.invoiceId,
    livemode: false,
    metadata: {},
    parent: line.parent,
    period: line.period,
    pretax_credit_amounts: [],
    pricing: {
      type: "price_details" as const,
      price_details: { price: line.priceId, product: line.productId },
      unit_amount_decimal: String(line.net),
    },
    quantity: 1,
    subtotal: line.net,
    taxes: invoiceTaxLines(line.tax, line.net),
  };
  return {
    object: "list" as const,
    data: [item],
    has_more: false,
    url: `/v1/invoices/${line.invoiceId}/lines`,
  };
}
