// Reading a built Astro page: which islands it hydrates (and how), which scripts and stylesheets it
// loads, and which chunks those scripts pull in by static import. Plain string work on the HTML and
// the minified chunks Astro writes; no browser.

export interface Island {
  /** The component's name, from its chunk's file name ("LoginForm.DU9tpsml.js" → "LoginForm"). */
  component: string;
  componentUrl: string;
  rendererUrl: string | undefined;
  beforeHydrationUrl: string | undefined;
  /** The client directive: load, idle, visible, media, only. */
  client: string;
}

const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** The attributes of one opening tag (`<name a="1" b>`), names lower-cased, entities in values decoded. */
export function tagAttributes(tag: string): Record<string, string> {
  const inner = tag.replace(/^<\s*[^\s>/]+/, "").replace(/\/?>$/, "");
  const attributes: Record<string, string> = {};
  for (const m of inner.matchAll(ATTRIBUTE)) {
    const name = m[1]?.toLowerCase();
    if (!name) continue;
    attributes[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attributes;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function openingTags(html: string, name: string): Record<string, string>[] {
  const pattern = new RegExp(`<${name}(?=[\\s>/])(?:[^>"']|"[^"]*"|'[^']*')*>`, "gi");
  return [...html.matchAll(pattern)].map((m) => tagAttributes(m[0]));
}

export function componentName(url: string): string {
  const file = url.split(/[?#]/)[0]?.split("/").pop() ?? url;
  const stem = file.replace(/\.(m?js|jsx|tsx?)$/, "");
  const dot = stem.lastIndexOf(".");
  return dot > 0 ? stem.slice(0, dot) : stem;
}

export function parseIslands(html: string): Island[] {
  return openingTags(html, "astro-island").flatMap((a) => {
    const componentUrl = a["component-url"];
    if (!componentUrl) return [];
    return [
      {
        component: componentName(componentUrl),
        componentUrl,
        rendererUrl: a["renderer-url"] || undefined,
        beforeHydrationUrl: a["before-hydration-url"] || undefined,
        client: a.client ?? "unknown",
      },
    ];
  });
}

/** Islands grouped by component and directive, in first-seen order: "AccountMenu (idle) ×2". */
export function islandSummary(
  islands: readonly Island[],
): { component: string; client: string; count: number }[] {
  const groups = new Map<string, { component: string; client: string; count: number }>();
  for (const island of islands) {
    const key = `${island.component}\u0000${island.client}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { component: island.component, client: island.client, count: 1 });
  }
  return [...groups.values()];
}

export function stylesheetHrefs(html: string): string[] {
  return openingTags(html, "link")
    .filter((a) => (a.rel ?? "").toLowerCase().split(/\s+/).includes("stylesheet") && a.href)
    .map((a) => a.href ?? "");
}

/** External scripts the page itself loads: `<script src>` and `<link rel="modulepreload">`. */
export function scriptSrcs(html: string): string[] {
  const scripts = openingTags(html, "script")
    .filter((a) => a.src && isJavaScriptType(a.type))
    .map((a) => a.src ?? "");
  const preloads = openingTags(html, "link")
    .filter((a) => (a.rel ?? "").toLowerCase() === "modulepreload" && a.href)
    .map((a) => a.href ?? "");
  return [...scripts, ...preloads];
}

function isJavaScriptType(type: string | undefined): boolean {
  if (type === undefined || type === "") return true;
  const t = type.toLowerCase();
  return t === "module" || t === "text/javascript" || t === "application/javascript";
}

/** The bodies of inline scripts that run (not JSON or other data blocks). */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script(?=[\s>])((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)<\/script\s*>/gi)]
    .filter((m) => {
      const a = tagAttributes(`<script${m[1] ?? ""}>`);
      return !a.src && isJavaScriptType(a.type);
    })
    .map((m) => m[2] ?? "")
    .filter((body) => body.trim() !== "");
}

export function inlineStyles(html: string): string[] {
  return [...html.matchAll(/<style(?=[\s>])(?:[^>"']|"[^"]*"|'[^']*')*>([\s\S]*?)<\/style\s*>/gi)].map(
    (m) => m[1] ?? "",
  );
}

/**
 * The specifiers a module imports statically (`import x from "…"`, `import "…"`,
 * `export … from "…"`); dynamic `import("…")` is left out: it loads later, on demand.
 */
export function staticImports(js: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?(["'`])([^"'`]+)\1/g;
  for (const m of js.matchAll(pattern)) {
    const spec = m[2];
    if (spec) found.push(spec);
  }
  return found;
}

/** A module specifier as a site path, relative to the importing file's path ("/_astro/a.js"). */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!/^(\.{1,2}\/|\/)/.test(specifier)) return undefined; // a bare or remote import: not ours
  return new URL(specifier, new URL(from, "http://site.invalid/")).pathname;
}

/** Every module reachable from `roots` by static imports, roots first, each once. */
export function staticClosure(roots: readonly string[], importsOf: (path: string) => string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const path = queue.shift();
    if (path === undefined || seen.has(path)) continue;
    seen.add(path);
    for (const spec of importsOf(path)) {
      const resolved = resolveSpecifier(path, spec);
      if (resolved && !seen.has(resolved)) queue.push(resolved);
    }
  }
  return [...seen];
}

/**
 * The HTML of each element opened by a tag matching `open` (e.g. `<footer`), up to its matching
 * close tag, counting nested elements of the same name.
 */
export function elementRegions(html: string, tagName: string, marker?: RegExp): string[] {
  const regions: string[] = [];
  const open = new RegExp(`<${tagName}(?=[\\s>])(?:[^>"']|"[^"]*"|'[^']*')*>`, "gi");
  for (const m of html.matchAll(open)) {
    if (marker && !marker.test(m[0])) continue;
    const start = m.index ?? 0;
    const tags = new RegExp(`<(/?)${tagName}(?=[\\s>])`, "gi");
    tags.lastIndex = start + m[0].length;
    let depth = 1;
    let end = html.length;
    for (let t = tags.exec(html); t; t = tags.exec(html)) {
      depth += t[1] === "/" ? -1 : 1;
      if (depth === 0) {
        end = html.indexOf(">", t.index) + 1;
        break;
      }
    }
    regions.push(html.slice(start, end));
  }
  return regions;
}

/** True when a piece of HTML can run JavaScript of its own: a script, an island or an inline handler. */
export function shipsJavaScript(fragment: string): boolean {
  return /<script[\s>]|<astro-island[\s>]|<[a-z][^>]*\son[a-z]+\s*=/i.test(fragment);
}
