import { describe, expect, it } from "vitest";
import { csvCells, csvCellsWithMember, usageCsvStream } from "./usage-csv.ts";
import type { ChargeCursor, UsageCharge } from "./usage-store.ts";

const charge = (n: number, overrides: Partial<UsageCharge> = {}): UsageCharge => ({
  id: `id-${n}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 12, 0, n)),
  feature: "comic",
  people: "one",
  quantity: 1,
  amount: 5000,
  keyName: "Worker",
  keyPrefix: "gpk_abc",
  idempotencyKey: `gen-${n}`,
  member: "ann",
  ...overrides,
});

describe("csvCells", () => {
  it("writes the time on Berlin's clock with its offset, and credits from milli-credits", () => {
    expect(csvCells(charge(0, { createdAt: new Date("2026-07-01T09:00:00.123Z"), amount: 100 }))).toEqual([
      "2026-07-01T11:00:00+02:00",
      "comic",
      "one",
      1,
      0.1,
      "Worker",
      "gpk_abc",
      "gen-0",
    ]);
  });

  it("leaves the cells of a manual charge without key, feature, people or quantity empty", () => {
    const manual = charge(1, { feature: null, people: null, quantity: null, keyName: null, keyPrefix: null });
    expect(csvCells(manual)).toEqual(["2026-01-01T13:00:01+01:00", "", "", "", 5, "", "", "gen-1"]);
  });
});

describe("csvCellsWithMember", () => {
  it("adds who made the charge's key as the last cell", () => {
    expect(csvCellsWithMember(charge(2, { member: "Shared keys" }))).toEqual([
      ...csvCells(charge(2)),
      "Shared keys",
    ]);
  });
});

describe("usageCsvStream", () => {
  async function read(stream: ReadableStream<Uint8Array>) {
    return new Response(stream).text();
  }

  it.each([
    [2, [undefined, 1, 3]],
    [3, [undefined, 2]],
  ])("reads pages of %i from the last charge of the one before, until a short page", async (size, afters) => {
    const all = [1, 2, 3, 4, 5].map((n) => charge(n));
    const asked: (ChargeCursor | undefined)[] = [];
    const text = await read(
      usageCsvStream(async (after, limit) => {
        asked.push(after);
        const start = after ? all.findIndex((c) => c.id === after.id) + 1 : 0;
        return all.slice(start, start + limit);
      }, size),
    );
    const cursorOf = (i: number | undefined) => {
      const c = i === undefined ? undefined : all[i];
      return c && { createdAt: c.createdAt, id: c.id };
    };
    expect(asked).toEqual(afters.map(cursorOf));
    const lines = text.split("\n");
    expect(lines[0]).toBe("time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key");
    expect(lines.slice(1, -1).map((line) => line.split(",").at(-1))).toEqual([
      "gen-1",
      "gen-2",
      "gen-3",
      "gen-4",
      "gen-5",
    ]);
    expect(lines.at(-1)).toBe("");
  });

  it("stops after an empty page when the charges fill the last page exactly, sending no empty chunk", async () => {
    const all = [1, 2].map((n) => charge(n));
    let reads = 0;
    const reader = usageCsvStream(async (after) => {
      reads += 1;
      return after ? [] : all;
    }, 2).getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(reads).toBe(2);
    // The header, then one page: an empty page adds nothing, not even an empty chunk.
    expect(chunks.map((c) => c.length > 0)).toEqual([true, true]);
    expect(new TextDecoder().decode(Buffer.concat(chunks)).split("\n")).toHaveLength(4);
  });

  it("reads a page only when the client has taken the one before", async () => {
    let reads = 0;
    const stream = usageCsvStream(async () => {
      reads += 1;
      return [charge(reads), charge(reads + 100)];
    }, 2);
    const reader = stream.getReader();
    await reader.read(); // the header
    await reader.read(); // the first page
    expect(reads).toBeLessThanOrEqual(2);
    await reader.cancel();
  });

  it("adds the member column for a team organisation, and only then", async () => {
    const page = async () => [charge(1, { member: "bob" })];
    const team = (await read(usageCsvStream(page, 10, true))).split("\n");
    expect(team[0]).toBe("time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key,member");
    expect(team[1]?.endsWith(",gen-1,bob")).toBe(true);
    const personal = (await read(usageCsvStream(page, 10))).split("\n");
    expect(personal[0]).toBe("time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key");
    expect(personal[1]?.endsWith(",gen-1")).toBe(true);
  });

  it("keeps a cell a spreadsheet would run as a formula as text", async () => {
    const text = await read(
      usageCsvStream(async () => [charge(1, { keyName: "+SUM(A1)", idempotencyKey: "@x" })]),
    );
    expect(text).toContain(",'+SUM(A1),gpk_abc,'@x\n");
  });
});
