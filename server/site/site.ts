// The prebuilt portal held in memory: every HTML page with its CSP header and ETag. The site is a
// few dozen small pages, so reading them once at start-up is cheaper than a disk read per request
// and lets every page answer with its exact policy.
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { cspHeaderForHtml } from "../../contract/site/page-csp.ts";
import { routeKeyForFile } from "../../contract/site/routes.ts";
import { ENCODING_SUFFIX, type Encoding } from "./encoding.ts";

export interface SitePage {
  html: string;
  csp: string;
  etag: string;
  /** The build's precompressed copies of `html` (src/integrations/precompress), when present. */
  encoded: Partial<Record<Encoding, Buffer>>;
}

export interface Site {
  /** Absolute path of the build folder; static assets are served from it. */
  distDir: string;
  pages: ReadonlyMap<string, SitePage>;
}

async function* htmlFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* htmlFiles(full);
    else if (entry.name.endsWith(".html")) yield full;
  }
}

export function sitePage(html: string): SitePage {
  const etag = `"${createHash("sha256").update(html).digest("base64url").slice(0, 27)}"`;
  return { html, csp: cspHeaderForHtml(html), etag, encoded: {} };
}

const DECODE: Readonly<Record<Encoding, (data: Buffer) => Buffer>> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
};

/** The precompressed copies next to `file` that decode to exactly `html` (a stale copy is ignored). */
async function encodedCopies(file: string, html: string): Promise<SitePage["encoded"]> {
  const encoded: SitePage["encoded"] = {};
  for (const encoding of Object.keys(ENCODING_SUFFIX) as Encoding[]) {
    const data = await readFile(`${file}${ENCODING_SUFFIX[encoding]}`).catch(() => undefined);
    if (!data) continue;
    try {
      if (DECODE[encoding](data).toString("utf8") === html) encoded[encoding] = data;
    } catch {
      // a corrupt copy: serve the page uncompressed
    }
  }
  return encoded;
}

/** Loads the build in `distDir`; fails with a clear message when there is no build. */
export async function loadSite(distDir: string): Promise<Site> {
  const info = await stat(join(distDir, "index.html")).catch(() => undefined);
  if (!info)
    throw new Error(`No portal build in ${distDir}: run \`npm run build\` (npm start does it for you).`);
  const pages = new Map<string, SitePage>();
  for await (const file of htmlFiles(distDir)) {
    const html = await readFile(file, "utf8");
    pages.set(routeKeyForFile(relative(distDir, file)), {
      ...sitePage(html),
      encoded: await encodedCopies(file, html),
    });
  }
  return { distDir, pages };
}
