// A CSV download as a byte stream, read from the database a page at a time as the client takes it,
// so a year of rows never sits in memory whole (the usage CSV, the audit log's CSV). csv-stringify
// does the quoting, and escapes a cell a spreadsheet would run as a formula ("=HYPERLINK(...)"
// typed as a key name or a reason stays text).
import { stringify } from "csv-stringify/sync";

export type Cell = string | number;

const csv = (records: (readonly Cell[])[]) => stringify(records as Cell[][], { escape_formulas: true });

/**
 * The header, then each page `readPage` returns after the cursor of the previous page's last row,
 * until a page comes back short. A page is read only when the client has taken the previous one
 * (the stream's pull), so a slow download holds one page at a time.
 */
export function pagedCsvStream<Row, Cursor>(p: {
  header: readonly Cell[];
  cells: (row: Row) => Cell[];
  readPage: (after: Cursor | undefined, limit: number) => Promise<Row[]>;
  cursorOf: (row: Row) => Cursor;
  pageSize: number;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: Cursor | undefined;
  // The stream calls pull again only after the previous one finished, and never after close().
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csv([p.header])));
    },
    async pull(controller) {
      const page = await p.readPage(cursor, p.pageSize);
      const last = page.at(-1);
      if (last) controller.enqueue(encoder.encode(csv(page.map(p.cells))));
      // Stryker disable next-line ConditionalExpression: `!last` is there for the type of `last`;
      // an empty page is always short, so the length test alone gives the same answer.
      if (last === undefined || page.length < p.pageSize) {
        controller.close();
        return;
      }
      cursor = p.cursorOf(last);
    },
  });
}
