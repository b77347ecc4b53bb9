// The quarterly VAT report a German seller's tax adviser files from (OPERATIONS.md): domestic
// sales at their rate, One-Stop-Shop sales per member state of consumption and rate, reverse-charge
// sales per buyer VAT ID (the EC Sales List), and sales outside the EU. Refunds count in the
// quarter they are made in, as negative lines that name the quarter of the sale they correct.
// Quarters are Berlin's calendar quarters. Plain functions: the store reads the rows (invoices
// and credit notes), these decide the lines, and table tests hold every rule.
import { Temporal } from "temporal-polyfill";
import { BERLIN, inBerlin } from "./berlin-time.ts";
import type { TaxTreatment } from "./vat.ts";

/** "2026-Q4". */
export type Quarter = string;

/** The Berlin quarter an instant falls in. */
export function quarterOf(instant: Date): Quarter {
  const day = inBerlin(instant);
  return `${day.year}-Q${Math.ceil(day.month / 3)}`;
}

/** The quarter's first instant and the next quarter's, on Berlin's clock; undefined for a bad name. */
export function quarterRange(quarter: string): { from: Date; to: Date } | undefined {
  const match = /^(\d{4})-Q([1-4])$/.exec(quarter);
  if (!match) return undefined;
  const year = Number(match[1]);
  const first = Temporal.PlainDate.from({ year, month: (Number(match[2]) - 1) * 3 + 1, day: 1 });
  const start = (date: Temporal.PlainDate) => new Date(date.toZonedDateTime(BERLIN).epochMilliseconds);
  return { from: start(first), to: start(first.add({ months: 3 })) };
}

export const VAT_SECTIONS = ["domestic", "oss", "reverse_charge", "non_eu", "unclassified"] as const;
export type VatSection = (typeof VAT_SECTIONS)[number];

const SECTION_OF: Record<TaxTreatment, VatSection> = {
  domestic: "domestic",
  eu_consumer: "oss",
  reverse_charge: "reverse_charge",
  outside_eu: "non_eu",
};

/** A sale (an invoice) or a refund (a credit note), as the report needs it. Amounts in minor units. */
export interface VatEntry {
  kind: "sale" | "refund";
  /** When the sale was invoiced, or the refund's credit note issued. */
  at: Date;
  /** A refund's: when the sale it corrects was invoiced. */
  saleAt: Date | null;
  /** Null for a payment whose VAT was not decided by us (before VAT collection): "unclassified". */
  treatment: TaxTreatment | null;
  rateBasisPoints: number | null;
  country: string | null;
  vatId: string | null;
  currency: string;
  net: number;
  vat: number;
}

/** One line of the report: a sum of entries with the same key. Refund lines are negative. */
export interface VatLine {
  section: VatSection;
  /** The member state of consumption (OSS), the buyer's country (reverse charge, outside the EU). */
  country: string | null;
  /** Percent, e.g. 19 or 25.5; null outside the rate-bearing sections. */
  rate: number | null;
  /** The buyer's VAT ID (reverse charge). */
  vatId: string | null;
  /** For refund lines: the quarter of the sale they correct. Null for sales. */
  originalQuarter: Quarter | null;
  currency: string;
  net: number;
  vat: number;
  /** Invoices or credit notes summed into the line. */
  count: number;
}

/** What a line is keyed by in its section: the fields the filing asks for, and no more. */
function lineKey(entry: VatEntry): Omit<VatLine, "net" | "vat" | "count"> {
  const section = entry.treatment ? SECTION_OF[entry.treatment] : "unclassified";
  const rate = entry.rateBasisPoints === null ? null : entry.rateBasisPoints / 100;
  const originalQuarter = entry.kind === "refund" ? quarterOf(entry.saleAt ?? entry.at) : null;
  const base = { section, originalQuarter, currency: entry.currency };
  switch (section) {
    case "domestic":
      return { ...base, country: null, rate, vatId: null };
    case "oss":
      return { ...base, country: entry.country, rate, vatId: null };
    case "reverse_charge":
      return { ...base, country: entry.country, rate: null, vatId: entry.vatId };
    case "non_eu":
      return { ...base, country: entry.country, rate: null, vatId: null };
    default:
      return { ...base, country: entry.country, rate, vatId: entry.vatId };
  }
}

const keyText = (key: ReturnType<typeof lineKey>) =>
  [key.section, key.country, key.rate, key.vatId, key.originalQuarter, key.currency].join("|");

/** Orders lines as the forms list them: by country, rate and VAT ID, each sale before its refunds. */
function compareLines(a: VatLine, b: VatLine): number {
  return (
    VAT_SECTIONS.indexOf(a.section) - VAT_SECTIONS.indexOf(b.section) ||
    (a.country ?? "").localeCompare(b.country ?? "") ||
    (a.rate ?? -1) - (b.rate ?? -1) ||
    (a.vatId ?? "").localeCompare(b.vatId ?? "") ||
    (a.originalQuarter ?? "").localeCompare(b.originalQuarter ?? "") ||
    a.currency.localeCompare(b.currency)
  );
}

/** The report's lines from the quarter's sales and refunds, summed by key; refunds negative. */
export function vatLines(entries: readonly VatEntry[]): VatLine[] {
  const lines = new Map<string, VatLine>();
  for (const entry of entries) {
    const key = lineKey(entry);
    const text = keyText(key);
    const line = lines.get(text) ?? { ...key, net: 0, vat: 0, count: 0 };
    const sign = entry.kind === "refund" ? -1 : 1;
    line.net += sign * entry.net;
    line.vat += sign * entry.vat;
    line.count += 1;
    lines.set(text, line);
  }
  return [...lines.values()].sort(compareLines);
}

/** Each section's net and VAT, and the quarter's, per currency (the catalogue sells in EUR). */
export function vatTotals(lines: readonly VatLine[]) {
  const totals = new Map<
    string,
    { section: VatSection | "all"; currency: string; net: number; vat: number }
  >();
  for (const line of lines) {
    for (const section of [line.section, "all"] as const) {
      const text = `${section}|${line.currency}`;
      const total = totals.get(text) ?? { section, currency: line.currency, net: 0, vat: 0 };
      total.net += line.net;
      total.vat += line.vat;
      totals.set(text, total);
    }
  }
  return [...totals.values()];
}
