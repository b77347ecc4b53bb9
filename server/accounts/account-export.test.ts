import { describe, expect, it } from "vitest";
import { accountExportStream } from "./account-export.ts";

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));

/** The stream read to its end, parsed, with the pages it asked for. */
async function exported(total: number, pageSize: number) {
  const all = rows(total);
  const asked: (number | undefined)[] = [];
  const stream = accountExportStream({
    head: { exported_at: "2030-01-15T10:00:00.000Z", account: { username: "ann" } },
    readPage: async (after: number | undefined, limit: number) => {
      asked.push(after);
      return all.filter((r) => r.id > (after ?? 0)).slice(0, limit);
    },
    cursorOf: (row) => row.id,
    item: (row) => ({ n: row.id }),
    pageSize,
  });
  const text = await new Response(stream).text();
  return { doc: JSON.parse(text) as { account: unknown; charges: { n: number }[] }, asked };
}

describe("accountExportStream", () => {
  it.each([
    [0, 3, [undefined]],
    [2, 3, [undefined]],
    [3, 3, [undefined, 3]],
    [7, 3, [undefined, 3, 6]],
  ])("%i charges in pages of %i: one valid JSON document, every charge once", async (total, size, pages) => {
    const { doc, asked } = await exported(total, size);
    expect(doc.account).toEqual({ username: "ann" });
    expect(doc.charges.map((c) => c.n)).toEqual(rows(total).map((r) => r.id));
    expect(asked).toEqual(pages);
  });
});
