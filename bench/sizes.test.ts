import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { kb, NO_BYTES, sizesOf, sumSizes } from "./sizes.ts";

describe("sizesOf", () => {
  const text = "const island = () => 'hydrated';\n".repeat(100);

  it("counts raw bytes as UTF-8, not characters", () => {
    expect(sizesOf("é").raw).toBe(2);
    expect(sizesOf(Buffer.from([1, 2, 3])).raw).toBe(3);
  });

  it("gives the sizes of gzip level 9 and brotli quality 11 streams of the content", () => {
    const s = sizesOf(text);
    expect(s.raw).toBe(text.length);
    expect(s.gzip).toBe(gzipSync(text, { level: 9 }).byteLength);
    expect(s.brotli).toBe(
      brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).byteLength,
    );
    expect(s.brotli).toBeLessThan(s.gzip);
    expect(s.gzip).toBeLessThan(s.raw);
  });
});

describe("sumSizes", () => {
  it("adds each file compressed on its own", () => {
    const a = { raw: 10, gzip: 8, brotli: 6 };
    const b = { raw: 1, gzip: 2, brotli: 3 };
    expect(sumSizes([a, b])).toEqual({ raw: 11, gzip: 10, brotli: 9 });
    expect(sumSizes([])).toEqual(NO_BYTES);
  });
});

describe("kb", () => {
  it("is 1,000 bytes with one decimal", () => {
    expect(kb(80_000)).toBe("80.0");
    expect(kb(79_951)).toBe("80.0");
    expect(kb(81_920)).toBe("81.9");
  });
});
