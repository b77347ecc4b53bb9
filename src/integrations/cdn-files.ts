// Build integration: writes the CDN's `_redirects` and `_headers` (Netlify / Cloudflare Pages
// format) into the build, from the same functions the Node server uses (contract/site), so a CDN serves the same
// page with the same policy for every URL. Build-time only: nothing here reaches the browser.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";
import { cspHeaderForHtml } from "../../contract/site/page-csp.ts";
import {
  cdnRewriteLines,
  NESTED_PARAM_ROUTES,
  PARAM_ROUTES,
  routeKeyForFile,
} from "../../contract/site/routes.ts";
import { BASE_SECURITY_HEADERS } from "../../contract/site/security-headers.ts";

/** The Node server's own security headers, so a CDN sends exactly the same. */
export const CDN_SECURITY_HEADERS = BASE_SECURITY_HEADERS;

/** Hashed bundles never change under the same name (as on the Node server). */
const IMMUTABLE = "public, max-age=31536000, immutable";

export interface BuiltPage {
  /** Path of the HTML file relative to the build folder, e.g. "login/index.html". */
  file: string;
  html: string;
}

export function redirectsFile(): string {
  return `${cdnRewriteLines().join("\n")}\n`;
}

/** The URL patterns a page answers: "/login" and "/login/"; a parameter route also "/payment/*". */
export function urlPatternsForPage(file: string): string[] {
  const key = routeKeyForFile(file);
  if (key === "/") return ["/"];
  if ((PARAM_ROUTES as readonly string[]).includes(key.slice(1))) return [key, `${key}/*`];
  // One segment below its parent (":id"): the parent's own "/admin/customers/" keeps its policy.
  const nested = NESTED_PARAM_ROUTES.find((r) => r.page === key);
  if (nested) return [`${nested.prefix}:id`];
  return [key, `${key}/`];
}

function block(pattern: string, headers: Readonly<Record<string, string>>): string {
  return [pattern, ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`)].join("\n");
}

/**
 * The `_headers` file: security headers everywhere, each page's own CSP on the URLs it answers.
 * The 404 page is left out: a CDN serves it for any unknown URL, which no path rule can name, and it
 * carries its policy in its own <meta>.
 */
export function headersFile(pages: readonly BuiltPage[]): string {
  const blocks = [block("/*", CDN_SECURITY_HEADERS), block("/_astro/*", { "Cache-Control": IMMUTABLE })];
  const sorted = [...pages].sort((a, b) => routeKeyForFile(a.file).localeCompare(routeKeyForFile(b.file)));
  for (const page of sorted) {
    if (routeKeyForFile(page.file) === "/404") continue;
    const csp = { "Content-Security-Policy": cspHeaderForHtml(page.html) };
    for (const pattern of urlPatternsForPage(page.file)) blocks.push(block(pattern, csp));
  }
  return `${blocks.join("\n\n")}\n`;
}

async function builtPages(distDir: string, dir = distDir): Promise<BuiltPage[]> {
  const pages: BuiltPage[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) pages.push(...(await builtPages(distDir, full)));
    else if (entry.name.endsWith(".html")) {
      pages.push({ file: relative(distDir, full).replaceAll("\\", "/"), html: await readFile(full, "utf8") });
    }
  }
  return pages;
}

/** Writes `_redirects` and `_headers` into a finished build. */
export async function writeCdnFiles(distDir: string): Promise<void> {
  await writeFile(join(distDir, "_redirects"), redirectsFile());
  await writeFile(join(distDir, "_headers"), headersFile(await builtPages(distDir)));
}

export function cdnFiles(): AstroIntegration {
  return {
    name: "portal:cdn-files",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        await writeCdnFiles(fileURLToPath(dir));
        logger.info("wrote _redirects and _headers for CDNs");
      },
    },
  };
}
