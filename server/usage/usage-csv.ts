// The usage CSV: one row per charge, written page by page as the client reads, so an account with
// a year of charges never sits in memory whole (csv/paged-csv.ts streams it).

import { USAGE_CSV_COLUMNS, USAGE_CSV_MEMBER_COLUMN } from "../../contract/usage.ts";
import { pagedCsvStream } from "../csv/paged-csv.ts";
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

/** A team organisation's cells: csvCells and the member whose key made the charge. */
export const csvCellsWithMember = (charge: UsageCharge): (string | number)[] => [
  ...csvCells(charge),
  charge.member,
];

/**
 * The usage CSV as a byte stream (csv/paged-csv.ts): the header, then each page of charges after
 * the last one's final charge, until a page comes back short. A team organisation's (`withMember`)
 * has a last column naming the member whose key made each charge.
 */
export function usageCsvStream(
  readPage: (after: ChargeCursor | undefined, limit: number) => Promise<UsageCharge[]>,
  pageSize = CSV_PAGE_SIZE,
  withMember = false,
): ReadableStream<Uint8Array> {
  return pagedCsvStream({
    header: withMember ? [...USAGE_CSV_COLUMNS, USAGE_CSV_MEMBER_COLUMN] : USAGE_CSV_COLUMNS,
    cells: withMember ? csvCellsWithMember : csvCells,
    readPage,
    cursorOf: (last) => ({ createdAt: last.createdAt, id: last.id }),
    pageSize,
  });
}
