import { describe, expect, it } from "vitest";
import { chooseEncoding } from "./encoding.ts";

describe("chooseEncoding", () => {
  const both = ["br", "gzip"] as const;
  it.each([
    ["Chrome's header", "gzip, deflate, br, zstd", both, "br"],
    ["gzip only", "gzip, deflate", both, "gzip"],
    ["no header", undefined, both, undefined],
    ["identity only", "identity", both, undefined],
    ["brotli refused with q=0", "br;q=0, gzip", both, "gzip"],
    ["gzip weighted higher", "br;q=0.5, gzip;q=0.9", both, "gzip"],
    ["a tie goes to brotli", "gzip;q=0.8, br;q=0.8", both, "br"],
    ["any encoding", "*", both, "br"],
    ["any but brotli", "*, br;q=0", both, "gzip"],
    ["only a gzip copy exists", "br, gzip", ["gzip"] as const, "gzip"],
    ["no copies", "br, gzip", [] as const, undefined],
    ["upper case and spaces", " GZIP ; Q=1 ", both, "gzip"],
    ["a malformed q-value counts as refused", "br;q=x, gzip", both, "gzip"],
  ])("%s", (_name, header, available, expected) => {
    expect(chooseEncoding(header, available)).toBe(expected);
  });
});
