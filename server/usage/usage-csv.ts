// The usage CSV: one row per charge, written page by page as the client reads, so an account with
// a year of charges never sits in memory whole. csv-stringify does the quoting, and escapes a cell
// that a spreadsheet would run as a formula (a key named "=HYPERLINK(...)" stays text).
import { stringify } from "csv-stringify/sync";
import { USAGE_CSV_COLUMNS } from "../../contract/usage.ts";
import { inBerlin } from "../domain/berlin-time.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { ChargeCursor, UsageCharge } from "./usage-store.ts";

/** Charges read per query: big enough that a year of charges is a few hundred reads. */
export const CSV_PAGE_SIZE = 1000;

/** A charge's cells, in USAGE_CSV_COLUMNS' order; the time on Berlin's clock with its offset. */
export function csvCells(charge: UsageCharge): (string | number)[] {
  return [
    inBerlin(charge.createdAt).toString({ timeZoneName: "never", smallestUnit: "second" }),
    charge.feature ?? "",
    charge.people ?? "",
    charge.quantity ?? "",
    fromMillicredits(charge.amount),
    charge.keyName ?? "",
    charge.keyPrefix ?? "",
    charge.idempotencyKey,
  ];
}

const csv = (records: (readonly (string | number)[])[]) =>
  stringify(records as (string | number)[][], { escape_formulas: true });

/**
 * The CSV as a byte stream: the header, then each page `readPage` returns after the last one's
 * final charge, until a page comes back short. A page is read only when the client has taken the
 * previous one (the stream's pull), so a slow download holds one page at a time.
 */
export function usageCsvStream(
  readPage: (after: ChargeCursor | undefined, limit: number) => Promise<UsageCharge[]>,
  pageSize = CSV_PAGE_SIZE,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: ChargeCursor | undefined;
  // The stream calls pull again only after the previous one finished, and never after close().
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csv([USAGE_CSV_COLUMNS])));
    },
    async pull(controller) {
      const page = await readPage(cursor, pageSize);
      const last = page.at(-1);
      if (last) controller.enqueue(encoder.encode(csv(page.map(csvCells))));
      // Stryker disable next-line ConditionalExpression: `!last` is there for the type of `last`;
      // an empty page is always short, so the length test alone gives the same answer.
      if (!last || page.length < pageSize) {
        controller.close();
        return;
      }
      cursor = { createdAt: last.createdAt, id: last.id };
    },
  });
}
