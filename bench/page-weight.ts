// Page weight of the built portal: for every HTML page in dist/, the bytes of its HTML, of the CSS
// it links or inlines, and of the JavaScript it runs before any user action (inline scripts, the
// islands' component and renderer chunks, and every chunk those import statically). Chunks a page
// imports dynamically (on the first API call, the first toast, a paid plan's dialogs) are not
// counted: a visitor who never triggers them never downloads them.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  elementRegions,
  type Island,
  inlineScripts,
  inlineStyles,
  islandSummary,
  parseIslands,
  scriptSrcs,
  shipsJavaScript,
  staticClosure,
  staticImports,
  stylesheetHrefs,
} from "./islands.ts";
import { type Sizes, sizesOf, sumSizes } from "./sizes.ts";

export interface FileWeight {
  path: string;
  sizes: Sizes;
}

export interface PageWeight {
  route: string;
  html: Sizes;
  css: Sizes;
  js: Sizes;
  /**
   * Inline scripts only (Astro's island runtime and directive loaders), part of `js`: what they add
   * to the page's HTML, raw and compressed (they travel inside the HTML's one compressed stream).
   */
  inlineJs: Sizes;
  cssFiles: FileWeight[];
  jsFiles: FileWeight[];
  islands: { component: string; client: string; count: number }[];
  /** Parts of the page that must not ship JavaScript of their own, and whether each does. */
  staticParts: { part: string; count: number; shipsJavaScript: boolean }[];
}

/** What a page is made of, given its HTML and a reader for the files it references by site path. */
export function pageWeight(route: string, html: string, readAsset: (path: string) => Uint8Array): PageWeight {
  const sizeCache = new Map<string, Sizes>();
  const textCache = new Map<string, string>();
  const read = (path: string) => {
    let text = textCache.get(path);
    if (text === undefined) {
      text = Buffer.from(readAsset(path)).toString("utf8");
      textCache.set(path, text);
    }
    return text;
  };
  const sized = (path: string): FileWeight => {
    let sizes = sizeCache.get(path);
    if (!sizes) {
      sizes = sizesOf(readAsset(path));
      sizeCache.set(path, sizes);
    }
    return { path, sizes };
  };

  const islands: Island[] = parseIslands(html);
  const roots = [
    ...scriptSrcs(html),
    ...islands.flatMap((i) => [i.beforeHydrationUrl, i.rendererUrl, i.componentUrl]),
  ].filter((p): p is string => p?.startsWith("/") ?? false);
  const jsFiles = staticClosure([...new Set(roots)], (path) => staticImports(read(path))).map(sized);
  const inlineJs = inlineScriptCost(html);
  const cssFiles = stylesheetHrefs(html)
    .filter((href) => href.startsWith("/"))
    .map(sized);
  const inlineCss = inlineStyles(html).map((s) => sizesOf(s));

  return {
    route,
    html: sizesOf(html),
    css: sumSizes([...cssFiles.map((f) => f.sizes), ...inlineCss]),
    js: sumSizes([...jsFiles.map((f) => f.sizes), inlineJs]),
    inlineJs,
    cssFiles,
    jsFiles,
    islands: islandSummary(islands),
    staticParts: staticParts(html),
  };
}

/** What the inline scripts' bodies add to the HTML: raw, and to its gzip and brotli streams. */
export function inlineScriptCost(html: string): Sizes {
  const without = html.replace(
    /(<script(?=[\s>])(?:[^>"']|"[^"]*"|'[^']*')*>)([\s\S]*?)(<\/script\s*>)/gi,
    (whole, open: string, body: string, close: string) =>
      inlineScripts(whole).length > 0 && body ? open + close : whole,
  );
  const withScripts = sizesOf(html);
  const withoutScripts = sizesOf(without);
  return {
    raw: withScripts.raw - withoutScripts.raw,
    gzip: Math.max(0, withScripts.gzip - withoutScripts.gzip),
    brotli: Math.max(0, withScripts.brotli - withoutScripts.brotli),
  };
}

/** The footer, the tables and the FAQ: content only, so they must not bring scripts or islands. */
export function staticParts(html: string): PageWeight["staticParts"] {
  const parts: [string, string[]][] = [
    ["footer", elementRegions(html, "footer")],
    ["tables", elementRegions(html, "table")],
    ["FAQ", elementRegions(html, "div", /\sdata-faq[\s>=]/)],
  ];
  return parts
    .filter(([, regions]) => regions.length > 0)
    .map(([part, regions]) => ({
      part,
      count: regions.length,
      shipsJavaScript: regions.some(shipsJavaScript),
    }));
}

/** "index.html" → "/", "login/index.html" → "/login", "404.html" → "/404". */
export function routeForFile(file: string): string {
  const path = file.split(sep).join("/");
  if (path === "index.html") return "/";
  if (path.endsWith("/index.html")) return `/${path.slice(0, -"/index.html".length)}`;
  return `/${path.replace(/\.html$/, "")}`;
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".html"))
    .map((e) => join(e.parentPath, e.name));
}

/** Every page of a build folder, sorted by route. */
export function measureDist(distDir: string): PageWeight[] {
  const readAsset = (path: string) => readFileSync(join(distDir, decodeURIComponent(path)));
  return htmlFiles(distDir)
    .map((file) => pageWeight(routeForFile(relative(distDir, file)), readFileSync(file, "utf8"), readAsset))
    .sort((a, b) => a.route.localeCompare(b.route));
}
