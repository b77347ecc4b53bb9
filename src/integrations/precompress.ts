// Build integration: writes a brotli (`.br`) and a gzip (`.gz`) copy next to every text file of the
// build, at the highest levels (brotli 11, gzip 9), once, at build time. The Node server sends them
// to browsers that accept them (server/site); nginx can with `gzip_static on` (and brotli_static
// with the brotli module); CDNs that compress by themselves ignore them. Build-time only.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { AstroIntegration } from "astro";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text formats worth compressing; images, fonts and the like are compressed already. */
export const COMPRESSIBLE = /\.(?:html|js|mjs|css|svg|json|xml|txt|webmanifest)$/i;

export interface Encoded {
  br: Buffer;
  gz: Buffer;
}

export async function encode(content: Buffer): Promise<Encoded> {
  const [br, gz] = await Promise.all([
    brotli(content, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.byteLength,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gzipAsync(content, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  return { br, gz };
}

async function* textFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* textFiles(full);
    else if (COMPRESSIBLE.test(entry.name)) yield full;
  }
}

/**
 * Writes `file.br` and `file.gz` for each compressible file in `distDir`, each only when it is
 * smaller than the file itself. Returns how many copies it wrote.
 */
export async function precompressDir(distDir: string): Promise<number> {
  const jobs: Promise<number>[] = [];
  for await (const file of textFiles(distDir)) {
    jobs.push(
      (async () => {
        const content = await readFile(file);
        const { br, gz } = await encode(content);
        let written = 0;
        for (const [suffix, data] of [
          [".br", br],
          [".gz", gz],
        ] as const) {
          if (data.byteLength >= content.byteLength) continue;
          await writeFile(`${file}${suffix}`, data);
          written += 1;
        }
        return written;
      })(),
    );
  }
  return (await Promise.all(jobs)).reduce((a, b) => a + b, 0);
}

export function precompress(): AstroIntegration {
  return {
    name: "portal:precompress",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const written = await precompressDir(fileURLToPath(dir));
        logger.info(`wrote ${written} brotli and gzip copies of the build's text files`);
      },
    },
  };
}
