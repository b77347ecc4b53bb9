import { describe, expect, it } from "vitest";
import { pagedCsvStream } from "./paged-csv.ts";

const read = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("pagedCsvStream", () => {
  const rows = Array.from({ length: 5 }, (_, i) => ({ n: i + 1, name: `row ${i + 1}` }));

  it("writes the header, then every page after the last row's cursor, until a short page", async () => {
    const asked: Array<number | undefined> = [];
    const stream = pagedCsvStream<(typeof rows)[number], number>({
      header: ["n", "name"],
      cells: (r) => [r.n, r.name],
      readPage: async (after, limit) => {
        asked.push(after);
        return rows.filter((r) => r.n > (after ?? 0)).slice(0, limit);
      },
      cursorOf: (r) => r.n,
      pageSize: 2,
    });
    expect(await read(stream)).toBe("n,name\n1,row 1\n2,row 2\n3,row 3\n4,row 4\n5,row 5\n");
    expect(asked).toEqual([undefined, 2, 4]);
  });

  it("stops after an empty page when the rows fill the last page exactly", async () => {
    const asked: Array<number | undefined> = [];
    const stream = pagedCsvStream<(typeof rows)[number], number>({
      header: ["n"],
      cells: (r) => [r.n],
      readPage: async (after, limit) => {
        asked.push(after);
        return rows
          .slice(0, 4)
          .filter((r) => r.n > (after ?? 0))
          .slice(0, limit);
      },
      cursorOf: (r) => r.n,
      pageSize: 2,
    });
    expect(await read(stream)).toBe("n\n1\n2\n3\n4\n");
    expect(asked).toEqual([undefined, 2, 4]);
  });

  it("quotes what needs quoting and keeps a formula as text", async () => {
    const stream = pagedCsvStream<string, number>({
      header: ["text"],
      cells: (r) => [r],
      readPage: async (after) => (after === undefined ? ['a "quoted", text', "=HYPERLINK(1)"] : []),
      cursorOf: () => 1,
      pageSize: 10,
    });
    expect(await read(stream)).toBe('text\n"a ""quoted"", text"\n\'=HYPERLINK(1)\n');
  });
});
