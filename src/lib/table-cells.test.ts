import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { cellRoles, headingText } from "./table-cells.ts";

describe("headingText", () => {
  it.each([
    ["Total", "Total"],
    [2026, "2026"],
    [createElement("span", { className: "sr-only" }, "Actions"), "Actions"],
    [
      createElement("abbr", { title: "Value added tax" }, "VAT ", createElement("b", null, "19 %")),
      "VAT 19 %",
    ],
    [["Net", " ", "EUR"], "Net EUR"],
    [null, ""],
    [false, ""],
  ])("reads %o as %j", (node, text) => {
    expect(headingText(node)).toBe(text);
  });
});

describe("cellRoles", () => {
  it("labels every column but the key and the action", () => {
    const head = ["Date", "Description", "Total", createElement("span", { className: "sr-only" }, "Actions")];
    expect(cellRoles(head, 1, 3)).toEqual([
      { label: "Date" },
      { cell: "key" },
      { label: "Total" },
      { cell: "action" },
    ]);
  });

  it("takes the first column as the key when told nothing, and leaves a column without words unlabelled", () => {
    expect(cellRoles(["Customer", " ", "Joined"], 0)).toEqual([{ cell: "key" }, {}, { label: "Joined" }]);
  });
});
