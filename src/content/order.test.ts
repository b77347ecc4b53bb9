import { describe, expect, it } from "vitest";
import { inFileOrder, parseOrderedYamlList } from "./order.ts";

describe("ordered list files", () => {
  it("number their items in file order, so pages can undo the data store's sorting by id", () => {
    const items = parseOrderedYamlList("- { id: b }\n- { id: a }\n- { id: c }\n");
    expect(items).toEqual([
      { id: "b", order: 0 },
      { id: "a", order: 1 },
      { id: "c", order: 2 },
    ]);
    const sortedById = [...items].sort((x, y) => String(x.id).localeCompare(String(y.id)));
    const back = inFileOrder(sortedById.map((data) => ({ data: data as { order: number; id: string } })));
    expect(back.map((e) => e.data.id)).toEqual(["b", "a", "c"]);
  });

  it("refuses a file that is not a list", () => {
    expect(() => parseOrderedYamlList("a: 1\n")).toThrow(/YAML list/);
  });
});
