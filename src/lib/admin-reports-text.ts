// The operator console's reports page's words (/admin/reports): apart from admin-text.ts, so that the
// console's other pages do not load them.
export const REPORTS_PAGE_TEXT = {
  title: "VAT report",
  intro:
    "What a quarter's invoices and credit notes add up to, as the VAT return, the One-Stop-Shop return and the EC Sales List ask for it. Refunds count in the quarter they are made in, as negative lines naming the quarter of the sale.",
  quarter: "Quarter",
  download: "Download CSV",
  loading: "Adding up the quarter…",
  failed: "The report could not be loaded. Reload the page or try again.",
  empty: "No sales and no refunds in this quarter.",
  noneThisQuarter: "None this quarter.",
  sections: {
    domestic: "Domestic sales (Germany)",
    oss: "One-Stop Shop: EU consumers, per member state of consumption",
    reverse_charge: "Reverse charge: EU businesses, per buyer VAT ID (EC Sales List)",
    non_eu: "Sales outside the EU",
    unclassified: "Payments without a VAT decision (check these by hand)",
  },
  columns: {
    country: "Country",
    rate: "Rate",
    vatId: "Buyer VAT ID",
    original: "Line",
    net: "Net",
    vat: "VAT",
    documents: "Documents",
  },
  sale: "Sales",
  refundOf: (quarter: string) => `Refunds of ${quarter} sales`,
  total: "Total",
  quarterTotal: "The quarter",
} as const;
