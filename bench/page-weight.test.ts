import { describe, expect, it } from "vitest";
import { inlineScriptCost, pageWeight, routeForFile, staticParts } from "./page-weight.ts";
import { sizesOf } from "./sizes.ts";

const ASSETS: Record<string, string> = {
  "/_astro/site.css": "body{margin:0}".repeat(20),
  "/_astro/client.js": 'import{a}from"./shell.js";export default a;',
  "/_astro/LoginForm.js": 'import{a}from"./shell.js";import"./form.js";const s=()=>import("./schemas.js");',
  "/_astro/shell.js": "export const a=1;".repeat(50),
  "/_astro/form.js": 'import{a}from"./shell.js";export const f=a;',
  "/_astro/schemas.js": "export const big='not loaded with the page';".repeat(100),
};
const read = (path: string) => {
  const content = ASSETS[path];
  if (content === undefined) throw new Error(`no ${path}`);
  return Buffer.from(content);
};
const HTML = `<html><head><link rel="stylesheet" href="/_astro/site.css"><style>x{y:z}</style></head><body>
<script>(()=>{self.Astro={}})()</script>
<astro-island component-url="/_astro/LoginForm.js" renderer-url="/_astro/client.js" client="load"></astro-island>
<footer><p>No scripts here</p></footer></body></html>`;

describe("pageWeight", () => {
  const page = pageWeight("/login", HTML, read);

  it("counts the islands' chunks and their static imports, not dynamic ones", () => {
    expect(page.jsFiles.map((f) => f.path).sort()).toEqual([
      "/_astro/LoginForm.js",
      "/_astro/client.js",
      "/_astro/form.js",
      "/_astro/shell.js",
    ]);
  });

  it("adds the inline scripts to the JavaScript and each file's own gzip", () => {
    const files = page.jsFiles.reduce((n, f) => n + f.sizes.gzip, 0);
    expect(page.js.gzip).toBe(files + page.inlineJs.gzip);
    expect(page.inlineJs.raw).toBe("(()=>{self.Astro={}})()".length);
    expect(page.inlineJs.gzip).toBeGreaterThan(0);
  });

  it("counts linked and inline CSS", () => {
    expect(page.css.raw).toBe(sizesOf(ASSETS["/_astro/site.css"] ?? "").raw + "x{y:z}".length);
    expect(page.cssFiles.map((f) => f.path)).toEqual(["/_astro/site.css"]);
  });

  it("lists the islands and checks the static parts", () => {
    expect(page.islands).toEqual([{ component: "LoginForm", client: "load", count: 1 }]);
    expect(page.staticParts).toEqual([{ part: "footer", count: 1, shipsJavaScript: false }]);
  });
});

describe("inlineScriptCost", () => {
  it("is what the scripts add to the HTML, raw and compressed", () => {
    const cost = inlineScriptCost(HTML);
    const without = HTML.replace("(()=>{self.Astro={}})()", "");
    expect(cost.raw).toBe(HTML.length - without.length);
    expect(cost.gzip).toBe(sizesOf(HTML).gzip - sizesOf(without).gzip);
  });

  it("leaves external scripts and data blocks out", () => {
    const html = '<script src="/a.js"></script><script type="application/ld+json">{"a":1}</script>';
    expect(inlineScriptCost(html)).toEqual({ raw: 0, gzip: 0, brotli: 0 });
  });
});

describe("staticParts", () => {
  it("flags a footer, table or FAQ that carries a script or an island", () => {
    const html =
      '<table data-table="x"><tr><td><astro-island uid="1"></astro-island></td></tr></table>' +
      '<div class="a" data-faq><details><summary>Q</summary><p>A</p></details></div><footer></footer>';
    expect(staticParts(html)).toEqual([
      { part: "footer", count: 1, shipsJavaScript: false },
      { part: "tables", count: 1, shipsJavaScript: true },
      { part: "FAQ", count: 1, shipsJavaScript: false },
    ]);
  });
});

describe("routeForFile", () => {
  it.each([
    ["index.html", "/"],
    ["login/index.html", "/login"],
    ["404.html", "/404"],
    ["a/b/index.html", "/a/b"],
  ])("%s -> %s", (file, route) => {
    expect(routeForFile(file)).toBe(route);
  });
});
