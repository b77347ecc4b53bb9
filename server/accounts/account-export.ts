// The account's data as one JSON document (ACCOUNT-SECURITY.md, GDPR art. 15 and 20), streamed: the
// small parts first, then every charge a page at a time as the client reads, so a year of
// generations never sits in memory whole. Key metadata only, never a key, hash or second factor.

/** Charges read per query (as the usage CSV). */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * `head`'s fields, then `"charges": [...]` filled from `readPage` after the cursor of the previous
 * page's last row until a page comes back short.
 */
export function accountExportStream<Row, Cursor>(p: {
  head: Record<string, unknown>;
  readPage: (after: Cursor | undefined, limit: number) => Promise<Row[]>;
  cursorOf: (row: Row) => Cursor;
  item: (row: Row) => unknown;
  pageSize?: number;
}): ReadableStream<Uint8Array> {
  const pageSize = p.pageSize ?? EXPORT_PAGE_SIZE;
  const encoder = new TextEncoder();
  let cursor: Cursor | undefined;
  let first = true;
  const head = JSON.stringify(p.head, null, 2);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // The head's closing brace gives way to the charges array.
      controller.enqueue(encoder.encode(`${head.slice(0, -2)},\n  "charges": [`));
    },
    async pull(controller) {
      const page = await p.readPage(cursor, pageSize);
      const items = page.map((row) => JSON.stringify(p.item(row)));
      if (items.length > 0) {
        controller.enqueue(encoder.encode(`${first ? "\n    " : ",\n    "}${items.join(",\n    ")}`));
        first = false;
      }
      const last = page.at(-1);
      if (last === undefined || page.length < pageSize) {
        controller.enqueue(encoder.encode(first ? "]\n}\n" : "\n  ]\n}\n"));
        controller.close();
        return;
      }
      cursor = p.cursorOf(last);
    },
  });
}
