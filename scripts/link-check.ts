// Reads the built portal (dist/) as a browser would follow its links: every internal href or src
// must name a page the server answers (the same route table: contract/site/routes.ts) or a file
// in dist/, and every #fragment an element of that page with that id (or an <a name>). Links
// that islands build in the browser are not in the static HTML; their targets are checked by
// name in link-check.test.ts.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Parser } from "htmlparser2";
import { routeKeyForFile, routeKeyForPath } from "../contract/site/routes.ts";

/** Paths the server answers itself, not from dist/ (the API, its documents, the dev pages). */
const SERVER_PATHS = ["/v1/", "/v1", "/.well-known/", "/_dev/", "/_checkout/", "/healthz"];

export interface BuiltPage {
  /** The route key: "/", "/login", "/profile/api-keys". */
  route: string;
  ids: Set<string>;
  /** Every href and src, as written. */
  links: string[];
}

/** The ids and links of one HTML document. */
export function readPage(route: string, html: string): BuiltPage {
  const ids = new Set<string>();
  const links: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (attributes.id) ids.add(attributes.id);
      if (name === "a" && attributes.name) ids.add(attributes.name);
      for (const attribute of ["href", "src"]) {
        const value = attributes[attribute];
        if (value !== undefined) links.push(value);
      }
    },
  });
  parser.write(html);
  parser.end();
  return { route, ids, links };
}

function htmlFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return htmlFiles(path, root);
    return name.endsWith(".html") ? [relative(root, path)] : [];
  });
}

/** Every page of a built portal, by route key. */
export function readSite(distDir: string): Map<string, BuiltPage> {
  const pages = new Map<string, BuiltPage>();
  for (const file of htmlFiles(distDir)) {
    const route = routeKeyForFile(file);
    pages.set(route, readPage(route, readFileSync(join(distDir, file), "utf8")));
  }
  return pages;
}

/** Whether a link leaves the portal (another origin, mail, telephone, script). */
function isExternal(link: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("//");
}

/**
 * Why `link`, written on page `from`, leads nowhere; undefined when it resolves. `fileExists`
 * answers for a path below dist/ (assets, the sitemap).
 */
export function brokenReason(
  link: string,
  from: string,
  pages: Map<string, BuiltPage>,
  fileExists: (path: string) => boolean,
): string | undefined {
  if (isExternal(link)) return undefined;
  const url = new URL(link, `https://portal.invalid${from}`);
  const path = url.pathname;
  if (SERVER_PATHS.some((p) => path === p || (p.endsWith("/") && path.startsWith(p)))) return undefined;
  const fragment = decodeURIComponent(url.hash.slice(1));
  const route = routeKeyForPath(path);
  const page = route === undefined ? undefined : pages.get(route);
  if (!page) {
    if (fragment === "" && fileExists(path)) return undefined;
    return `no page or file at ${path}`;
  }
  if (fragment !== "" && !page.ids.has(fragment)) return `${route} has no element with id "${fragment}"`;
  return undefined;
}

/** Every broken link of the built portal, as "page: link (why)". */
export function brokenLinks(distDir: string): string[] {
  const pages = readSite(distDir);
  const fileExists = (path: string) => {
    try {
      return statSync(join(distDir, decodeURIComponent(path))).isFile();
    } catch {
      return false;
    }
  };
  const broken: string[] = [];
  for (const page of pages.values()) {
    for (const link of new Set(page.links)) {
      const why = brokenReason(link, page.route, pages, fileExists);
      if (why) broken.push(`${page.route}: ${link} (${why})`);
    }
  }
  return broken.sort();
}
