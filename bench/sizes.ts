// Byte counts of a file as it would travel: raw, gzip and brotli. The levels are the ones a build
// step or CDN uses for static files (gzip 9, brotli 11), so the figures are reproducible and do not
// depend on how a particular server compresses on the fly.
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

export const NO_BYTES: Sizes = Object.freeze({ raw: 0, gzip: 0, brotli: 0 });

export function sizesOf(content: string | Uint8Array): Sizes {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return {
    raw: bytes.byteLength,
    gzip: gzipSync(bytes, { level: 9 }).byteLength,
    brotli: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    }).byteLength,
  };
}

/** Each part compressed on its own, as each file travels on its own. */
export function sumSizes(parts: readonly Sizes[]): Sizes {
  return parts.reduce(
    (total, s) => ({ raw: total.raw + s.raw, gzip: total.gzip + s.gzip, brotli: total.brotli + s.brotli }),
    NO_BYTES,
  );
}

/** The report's unit: KB = 1,000 bytes (the stricter reading of "80 KB"), one decimal. */
export function kb(bytes: number): string {
  return (bytes / 1000).toFixed(1);
}
