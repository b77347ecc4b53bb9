import { describe, expect, it } from "vitest";
import type { InvoiceSummary } from "../../contract/invoices.ts";
import { attemptInvoiceLink, historyRowLink, invoiceLink, invoicePagePath } from "./invoice-view.ts";

const row = (over: Partial<InvoiceSummary>): InvoiceSummary => ({
  id: "inv-1",
  number: "INV-2026-000001",
  date: "2026-11-28T10:00:00Z",
  kind: "topup",
  description: "Auto top-up: 500 credit pack",
  currency: "eur",
  net: 5000,
  tax: 950,
  total: 5950,
  refunded: 0,
  tax_rate: 19,
  tax_treatment: "domestic",
  status: "paid",
  invoice_url: null,
  pdf_url: null,
  ...over,
});

describe("invoiceLink", () => {
  it("links Stripe's hosted page when Stripe issued the invoice", () => {
    expect(invoiceLink(row({ invoice_url: "https://invoice.stripe.com/i/x" }))).toEqual({
      href: "https://invoice.stripe.com/i/x",
      external: true,
    });
  });

  it("links the portal's own page for our numbered invoices, refunded and disputed ones too", () => {
    for (const status of ["paid", "refunded", "disputed"] as const)
      expect(invoiceLink(row({ status }))).toEqual({ href: invoicePagePath("inv-1"), external: false });
  });

  it("links nothing for a payment that was not made, numbered or not", () => {
    for (const status of ["failed", "not_charged", "authentication_required", "cancelled"] as const) {
      expect(invoiceLink(row({ status }))).toBeNull();
      expect(invoiceLink(row({ status, number: null }))).toBeNull();
    }
    expect(invoiceLink(row({ number: null }))).toBeNull();
  });

  it("puts the id in the page's query, encoded", () => {
    expect(invoicePagePath("a b&c")).toBe("/profile/billing/invoice?id=a%20b%26c");
  });
});

describe("historyRowLink", () => {
  it("links a payment waiting for the bank to its own page, which offers Complete payment too", () => {
    const waiting = row({ status: "authentication_required", number: null, pay_url: "/_checkout/invoice/x" });
    expect(historyRowLink(waiting)).toEqual({ href: invoicePagePath("inv-1"), external: false });
    const stripe = { ...waiting, invoice_url: "https://invoice.stripe.com/i/x" };
    expect(historyRowLink(stripe)).toEqual({ href: invoicePagePath("inv-1"), external: false });
  });

  it("links any other row as invoiceLink does", () => {
    for (const over of [
      {},
      { status: "failed" as const },
      { status: "authentication_required" as const },
      { invoice_url: "https://invoice.stripe.com/i/x" },
    ])
      expect(historyRowLink(row(over))).toEqual(invoiceLink(row(over)));
    expect(historyRowLink(row({ status: "failed" }))).toBeNull();
  });
});

describe("attemptInvoiceLink", () => {
  it("links an automatic top-up's invoice as its history row does: Stripe's page, else ours", () => {
    expect(attemptInvoiceLink({ invoice_id: "inv-1", invoice_url: null })).toEqual(invoiceLink(row({})));
    const stripe = "https://invoice.stripe.com/i/x";
    expect(attemptInvoiceLink({ invoice_id: null, invoice_url: stripe })).toEqual(
      invoiceLink(row({ invoice_url: stripe })),
    );
  });

  it("links nothing before the invoice is issued", () => {
    expect(attemptInvoiceLink({ invoice_id: null, invoice_url: null })).toBeNull();
  });
});
