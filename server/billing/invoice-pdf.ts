// One of our own invoices (the local checkout's numbered ones) as an A4 PDF, rendered with pdfkit
// from the same answer GET /v1/billing/invoices/{id} gives and in the same words as the portal's
// printable page (contract/invoice-document.ts), so the two never disagree. Stripe's invoices are
// Stripe's documents: they are never rendered here (a second document for one payment would be a
// second invoice).
//
// The text is set in DejaVu Sans (embedded, subset by pdfkit): PDF's built-in Helvetica covers only
// Western European letters, and buyers anywhere in the EU have names such as "Łukasz" or "Σοφία".
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import PDFDocument from "pdfkit";
import { documentTitle, partyLines, vatRateLabel } from "../../contract/invoice-document.ts";
import { returnedParts, INVOICE_TEXT as T } from "../../contract/invoice-text.ts";
import { type Invoice, type InvoiceParty, issuedNoInvoice } from "../../contract/invoices.ts";
import { formatMoney } from "../../contract/money.ts";
import type { InvoiceWithDocument } from "./invoices.ts";

const require = createRequire(import.meta.url);
const FONT_FILES = {
  regular: require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf"),
  bold: require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf"),
};
let fonts: { regular: Buffer; bold: Buffer } | undefined;
/** The two faces (1 MB together), read on the first download rather than at every one, or at start. */
const loadFonts = () =>
  (fonts ??= { regular: readFileSync(FONT_FILES.regular), bold: readFileSync(FONT_FILES.bold) });

const A4_MARGIN = 56;
const GREY = "#555555";

export interface InvoicePdfOptions {
  /** The document's title and author in its properties: the seller's brand. */
  producer: string;
}

/**
 * Why a stored invoice has no PDF of ours, or null when it has: a failed payment, or one auto
 * top-up did not make, issued no invoice,
 * and an invoice without our own number is Stripe's document (its `pdf_url`), not ours to render.
 */
export function invoicePdfRefusal(
  row: Pick<InvoiceWithDocument, "status" | "number">,
): "no_invoice_issued" | "provider_invoice_pdf" | null {
  if (issuedNoInvoice(row.status)) return "no_invoice_issued";
  if (row.number === null) return "provider_invoice_pdf";
  return null;
}

/** The invoice as PDF bytes. Only for an issued invoice of ours (a number, not failed, not Stripe's). */
export function renderInvoicePdf(invoice: Invoice, options: InvoicePdfOptions): Promise<Buffer> {
  const doc = new PDFDocument({
    size: "A4",
    margin: A4_MARGIN,
    // The invoice's own date, so the same invoice always gives the same document.
    info: {
      Title: `${documentTitle(invoice)} ${invoice.number ?? ""}`.trim(),
      Author: invoice.seller.name ?? options.producer,
      Producer: options.producer,
      Creator: options.producer,
      CreationDate: new Date(invoice.date),
      ModDate: new Date(invoice.date),
    },
    lang: "en",
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  const { regular, bold } = loadFonts();
  doc.registerFont("regular", regular);
  doc.registerFont("bold", bold);
  write(doc, invoice);
  doc.end();
  return done;
}

const money = (invoice: Invoice, cents: number) => formatMoney(cents, invoice.currency);

function write(doc: PDFKit.PDFDocument, invoice: Invoice): void {
  const left = doc.page.margins.left;
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const half = (width - 24) / 2;

  doc.font("bold").fontSize(20).text(documentTitle(invoice), left, A4_MARGIN);
  const top = doc.y + 8;
  doc.font("regular").fontSize(10);
  const creditNote = invoice.document === "credit_note";
  labelled(doc, creditNote ? T.creditNoteNumber : T.invoiceNumber, invoice.number ?? "—", left, top, half);
  labelled(doc, T.invoiceDate, invoice.date.slice(0, 10), left, doc.y + 4, half);
  if (invoice.refers_to) labelled(doc, T.refersTo, invoice.refers_to, left, doc.y + 4, half);

  const partiesTop = doc.y + 20;
  party(doc, T.seller, invoice.seller, left, partiesTop, half);
  const sellerBottom = doc.y;
  party(doc, T.buyer, invoice.buyer, left + half + 24, partiesTop, half);
  doc.y = Math.max(sellerBottom, doc.y) + 24;

  // The lines: description on the left, the net amount on the right.
  const amountWidth = 120;
  const descriptionWidth = width - amountWidth - 12;
  const amountX = left + width - amountWidth;
  const headerY = doc.y;
  doc.font("bold").fontSize(10).text(T.description, left, headerY, { width: descriptionWidth });
  doc.text(T.amount, amountX, headerY, { width: amountWidth, align: "right" });
  rule(doc, left, width, doc.y + 4);
  doc.y += 10;
  for (const line of invoice.lines) {
    const y = doc.y;
    doc.font("regular").fontSize(10).text(line.description, left, y, { width: descriptionWidth });
    doc
      .fillColor(GREY)
      .fontSize(9)
      .text(T.lineQuantity(line.quantity, money(invoice, line.unit_amount)), { width: descriptionWidth });
    const bottom = doc.y;
    doc.fillColor("black").fontSize(10).text(money(invoice, line.amount), amountX, y, {
      width: amountWidth,
      align: "right",
    });
    doc.y = Math.max(bottom, doc.y) + 6;
  }
  rule(doc, left, width, doc.y);
  doc.y += 8;

  const totals: [string, string, boolean][] = [
    [T.subtotal, money(invoice, invoice.net), false],
    [T.vatLine(vatRateLabel(invoice.tax_rate, invoice.tax_treatment)), money(invoice, invoice.tax), false],
    [`${T.grandTotal} (${invoice.currency.toUpperCase()})`, money(invoice, invoice.total), true],
  ];
  for (const [label, amount, strong] of totals) {
    const y = doc.y;
    doc.font(strong ? "bold" : "regular").fontSize(strong ? 12 : 10);
    doc.text(label, left, y, { width: width - amountWidth - 12, align: "right" });
    doc.text(amount, amountX, y, { width: amountWidth, align: "right" });
    doc.y += 4;
  }

  doc.font("regular").fontSize(10).fillColor("black");
  const notes = [invoice.note, ...returnedParts(invoice, (cents) => money(invoice, cents))];
  for (const note of notes) {
    if (note) doc.text(note, left, doc.y + 16, { width });
  }
}

function labelled(
  doc: PDFKit.PDFDocument,
  label: string,
  value: string,
  x: number,
  y: number,
  width: number,
) {
  doc.font("bold").text(`${label}: `, x, y, { width, continued: true });
  doc.font("regular").text(value);
}

function party(
  doc: PDFKit.PDFDocument,
  title: string,
  who: InvoiceParty,
  x: number,
  y: number,
  width: number,
) {
  doc
    .font("bold")
    .fontSize(9)
    .fillColor(GREY)
    .text(title.toUpperCase(), x, y, { width, characterSpacing: 0.5 });
  doc.font("regular").fontSize(10).fillColor("black");
  const lines = [...partyLines(who), ...(who.vat_id ? [T.vatIdLabel(who.vat_id)] : [])];
  doc.text(lines.join("\n"), x, doc.y + 2, { width });
}

function rule(doc: PDFKit.PDFDocument, x: number, width: number, y: number) {
  doc
    .moveTo(x, y)
    .lineTo(x + width, y)
    .lineWidth(0.5)
    .strokeColor("#999999")
    .stroke();
}
