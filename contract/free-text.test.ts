import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { isPrintableText, notPrintable, printable } from "./free-text.ts";

describe("free text", () => {
  it("accepts printable text in any script, with emoji", () => {
    expect(isPrintableText("Goodwill: Ausfall am 3. März, 東京 🎉")).toBe(true);
    expect(isPrintableText("")).toBe(true);
  });

  it.each([
    ["U+0000", "a\u0000b"],
    ["a bell", "a\u0007b"],
    ["DEL", "a\u007fb"],
    ["a C1 control", "a\u0085b"],
    ["an escape", "\u001b[31mred"],
  ])("refuses %s", (_, text) => {
    expect(isPrintableText(text)).toBe(false);
    expect(isPrintableText(text, true)).toBe(false);
  });

  it("refuses a lone surrogate, high or low, but not a pair", () => {
    expect(isPrintableText("a\ud800b")).toBe(false);
    expect(isPrintableText("a\udc00b")).toBe(false);
    expect(isPrintableText("a\ud83c\udf89b")).toBe(true);
  });

  it("allows line breaks and tabs only in multi-line text", () => {
    for (const brk of ["\n", "\r", "\t"]) {
      expect(isPrintableText(`one${brk}two`)).toBe(false);
      expect(isPrintableText(`one${brk}two`, true)).toBe(true);
    }
  });

  it("names the field in its message", () => {
    expect(notPrintable("The reason")).toBe(
      "The reason can hold only printable characters (no control characters or broken Unicode)",
    );
  });

  it("checks a zod string with the message given, line breaks allowed only when multi-line", () => {
    const name = z.string().check(printable("Bad name"));
    const reason = z.string().check(printable("Bad reason", true));
    const issues = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
      result.success ? [] : (result.error?.issues.map((i) => i.message) ?? []);
    expect(issues(name.safeParse("Render farm"))).toEqual([]);
    expect(issues(name.safeParse("Render\nfarm"))).toEqual(["Bad name"]);
    expect(issues(reason.safeParse("Outage.\nTicket 4711"))).toEqual([]);
    expect(issues(reason.safeParse("Outage\u0000"))).toEqual(["Bad reason"]);
  });
});
