// The invoice PDF: what a reader of the document sees (read back with a PDF text extractor), for a
// domestic sale, a reverse charge and a refund, with names outside Western European letters.
import { extractText, getDocumentProxy, getMeta } from "unpdf";
import { describe, expect, it } from "vitest";
import { invoicePdfName } from "../../contract/invoice-document.ts";
import type { Invoice } from "../../contract/invoices.ts";
import { invoicePdfRefusal, renderInvoicePdf } from "./invoice-pdf.ts";

const SELLER = {
  name: "Example GmbH",
  address: "Hauptstraße 5\n10115 Berlin\nGermany",
  country: "DE",
  vat_id: "DE123456789",
  email: null,
};

const domestic: Invoice = {
  id: "6f1c1f9e-2a4b-4c59-9a53-0d6a2b8f6e10",
  number: "INV-2026-000042",
  date: "2026-11-24T09:15:00.000Z",
  kind: "subscription",
  description: "Tier B, monthly subscription",
  currency: "eur",
  net: 4900,
  tax: 931,
  total: 5831,
  refunded: 0,
  tax_rate: 19,
  tax_treatment: "domestic",
  status: "paid",
  invoice_url: null,
  pdf_url: null,
  seller: SELLER,
  buyer: { name: "Łukasz Wójcik", address: null, country: "DE", vat_id: null, email: "lukasz@example.com" },
  lines: [{ description: "Tier B, monthly subscription", quantity: 1, unit_amount: 4900, amount: 4900 }],
  note: null,
};

const reverseCharge: Invoice = {
  ...domestic,
  number: "INV-2026-000043",
  kind: "topup",
  description: "500 credit pack",
  net: 5000,
  tax: 0,
  total: 5000,
  refunded: 2500,
  tax_rate: 0,
  tax_treatment: "reverse_charge",
  status: "refunded",
  buyer: { name: "Σοφία Παπαδοπούλου ΙΚΕ", address: null, country: "GR", vat_id: "EL094259216", email: null },
  lines: [{ description: "500 credit pack", quantity: 1, unit_amount: 5000, amount: 5000 }],
  note: "Reverse charge: VAT is to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).",
};

async function read(invoice: Invoice) {
  const bytes = new Uint8Array(await renderInvoicePdf(invoice, { producer: "GenAI Studio" }));
  // Read before the parser takes the bytes over (it transfers their buffer).
  const header = new TextDecoder().decode(bytes.slice(0, 5));
  const pdf = await getDocumentProxy(bytes);
  const { text } = await extractText(pdf, { mergePages: true });
  const { info } = await getMeta(pdf);
  return {
    header,
    pages: pdf.numPages,
    text: text.replace(/\s+/g, " "),
    info: info as Record<string, unknown>,
  };
}

describe("renderInvoicePdf", () => {
  it("a domestic sale: number, date, seller, buyer, the line, net, 19 % VAT and total on one A4 page", async () => {
    const { header, pages, text, info } = await read(domestic);
    expect(header).toBe("%PDF-");
    expect(pages).toBe(1);
    for (const shown of [
      "Invoice",
      "Invoice number: INV-2026-000042",
      "Date: 2026-11-24",
      "Example GmbH",
      "Hauptstraße 5",
      "VAT ID DE123456789",
      "Łukasz Wójcik",
      "Germany",
      "lukasz@example.com",
      "Tier B, monthly subscription",
      "1 × €49.00 (net)",
      "Net total",
      "VAT 19 %",
      "€9.31",
      "Total (EUR)",
      "€58.31",
    ]) {
      expect(text).toContain(shown);
    }
    expect(text).not.toContain("refunded");
    expect(text).not.toContain("Reverse charge");
    expect(info.Title).toBe("Invoice INV-2026-000042");
    expect(info.Author).toBe("Example GmbH");
  });

  it("a reverse charge: 0 % with the reason, the buyer's VAT ID, the legal note and what was refunded", async () => {
    const { text } = await read(reverseCharge);
    for (const shown of [
      "Σοφία Παπαδοπούλου ΙΚΕ",
      "Greece",
      "VAT ID EL094259216",
      "VAT 0 %, reverse charge",
      "€0.00",
      "€50.00",
      "Reverse charge: VAT is to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).",
      "€25.00 refunded",
    ]) {
      expect(text).toContain(shown);
    }
  });

  it("a lost dispute: what the buyer's bank took back, not a refund", async () => {
    const { text } = await read({ ...domestic, status: "dispute_lost", refunded: domestic.total });
    expect(text).toContain("€58.31 taken back by the buyer's bank after a dispute");
    expect(text).not.toContain("refunded");
  });

  it("a dispute lost after a partial refund: the refund and what the bank took back of the rest", async () => {
    const { text } = await read({
      ...domestic,
      status: "dispute_lost",
      refunded: domestic.total,
      taken_back: 4831,
    });
    expect(text).toContain("€10.00 refunded");
    expect(text).toContain("€48.31 taken back by the buyer's bank after a dispute");
  });

  it("is named after its number", () => {
    expect(invoicePdfName(domestic)).toBe("INV-2026-000042.pdf");
  });
});

describe("invoicePdfRefusal", () => {
  it.each([
    [{ status: "paid", number: "INV-2026-000001" }, null],
    [{ status: "refunded", number: "INV-2026-000001" }, null],
    [{ status: "disputed", number: "INV-2026-000001" }, null],
    [{ status: "failed", number: null }, "no_invoice_issued"],
    [{ status: "not_charged", number: null }, "no_invoice_issued"],
    [{ status: "paid", number: null }, "provider_invoice_pdf"],
  ] as const)("%o -> %s", (row, refusal) => {
    expect(invoicePdfRefusal(row)).toBe(refusal);
  });
});
