import { describe, expect, it } from "vitest";
import {
  componentName,
  elementRegions,
  inlineScripts,
  inlineStyles,
  islandSummary,
  parseIslands,
  resolveSpecifier,
  scriptSrcs,
  shipsJavaScript,
  staticClosure,
  staticImports,
  stylesheetHrefs,
  tagAttributes,
} from "./islands.ts";

// Shaped like Astro 7's output: attributes unquoted where they can be, props HTML-escaped.
const PAGE = `<!DOCTYPE html><html><head>
<link rel="stylesheet" href="/_astro/BaseLayout.abc.css"><link rel="icon" href="/favicon.svg">
<script type="module" src="/_astro/page.x1.js"></script>
<script type="application/ld+json">{"@type":"Organization"}</script>
<style>astro-island{display:contents}</style>
</head><body>
<script>(()=>{self.Astro=self.Astro||{};})();</script>
<astro-island uid="Z1" prefix="r1" component-url="/_astro/ToastHost.D0a-_b.js" component-export="default" renderer-url="/_astro/client.Q.js" props="{&quot;a&quot;:[0,&quot;x&gt;y&quot;]}" ssr client="idle"></astro-island>
<astro-island uid="Z2" component-url="/_astro/PlanPrice.r0YA.js" renderer-url="/_astro/client.Q.js" client="visible" await-children><span>9 €</span></astro-island>
<astro-island uid="Z3" component-url="/_astro/PlanPrice.r0YA.js" renderer-url="/_astro/client.Q.js" client="visible"></astro-island>
<main><table data-table="features"><tr><td>A</td></tr></table></main>
<footer class="f"><p>Made with <a href="/">care</a></p><footer>nested</footer></footer>
</body></html>`;

describe("tagAttributes", () => {
  it("reads quoted, unquoted and bare attributes and decodes entities", () => {
    expect(tagAttributes(`<a href="/x?a=1&amp;b=2" data-x='y' hidden tabindex=0>`)).toEqual({
      href: "/x?a=1&b=2",
      "data-x": "y",
      hidden: "",
      tabindex: "0",
    });
  });
});

describe("parseIslands", () => {
  it("lists each island with its component, chunk, renderer and directive", () => {
    const islands = parseIslands(PAGE);
    expect(islands.map((i) => [i.component, i.client])).toEqual([
      ["ToastHost", "idle"],
      ["PlanPrice", "visible"],
      ["PlanPrice", "visible"],
    ]);
    expect(islands[0]).toMatchObject({
      componentUrl: "/_astro/ToastHost.D0a-_b.js",
      rendererUrl: "/_astro/client.Q.js",
      beforeHydrationUrl: undefined,
    });
  });

  it("summarises them by component and directive", () => {
    expect(islandSummary(parseIslands(PAGE))).toEqual([
      { component: "ToastHost", client: "idle", count: 1 },
      { component: "PlanPrice", client: "visible", count: 2 },
    ]);
  });

  it("names a component after its chunk, without the content hash", () => {
    expect(componentName("/_astro/RegisterForm.-3vavFCH.js")).toBe("RegisterForm");
    expect(componentName("/_astro/use-form.B1STVMQP.js?v=1")).toBe("use-form");
    expect(componentName("/_astro/plain.js")).toBe("plain");
  });
});

describe("the page's own scripts and styles", () => {
  it("finds linked stylesheets, external scripts, and inline scripts that run", () => {
    expect(stylesheetHrefs(PAGE)).toEqual(["/_astro/BaseLayout.abc.css"]);
    expect(scriptSrcs(PAGE)).toEqual(["/_astro/page.x1.js"]);
    expect(inlineScripts(PAGE)).toEqual(["(()=>{self.Astro=self.Astro||{};})();"]);
    expect(inlineStyles(PAGE)).toEqual(["astro-island{display:contents}"]);
  });
});

describe("staticImports", () => {
  it("finds static imports and re-exports in minified code, not dynamic imports", () => {
    const js =
      'import{n as e}from"./rolldown-runtime.W.js";import{t}from"./react.C.js";import"./side.js";' +
      'export{x as default}from"./shell.D.js";import*as z from"../up.js";' +
      'const lazy=()=>import(`./schemas.N.js`);const other=()=>import("./dist.C.js");export{e as n};';
    expect(staticImports(js)).toEqual([
      "./rolldown-runtime.W.js",
      "./react.C.js",
      "./side.js",
      "./shell.D.js",
      "../up.js",
    ]);
  });
});

describe("resolveSpecifier and staticClosure", () => {
  it("resolves relative specifiers against the importing file's path", () => {
    expect(resolveSpecifier("/_astro/a.js", "./b.js")).toBe("/_astro/b.js");
    expect(resolveSpecifier("/_astro/a.js", "../c.js")).toBe("/c.js");
    expect(resolveSpecifier("/_astro/a.js", "/d.js")).toBe("/d.js");
    expect(resolveSpecifier("/_astro/a.js", "react")).toBeUndefined();
  });

  it("follows static imports transitively, each file once, cycles included", () => {
    const graph: Record<string, string[]> = {
      "/_astro/island.js": ["./shell.js", "./form.js"],
      "/_astro/form.js": ["./shell.js"],
      "/_astro/shell.js": ["./runtime.js", "./island.js"],
      "/_astro/runtime.js": [],
    };
    expect(staticClosure(["/_astro/island.js"], (p) => graph[p] ?? [])).toEqual([
      "/_astro/island.js",
      "/_astro/shell.js",
      "/_astro/form.js",
      "/_astro/runtime.js",
    ]);
  });
});

describe("elementRegions and shipsJavaScript", () => {
  it("cuts out whole elements, nested ones of the same name included", () => {
    expect(elementRegions(PAGE, "footer")).toEqual([
      '<footer class="f"><p>Made with <a href="/">care</a></p><footer>nested</footer></footer>',
      "<footer>nested</footer>",
    ]);
    expect(elementRegions(PAGE, "table", /data-table=/)).toHaveLength(1);
    expect(elementRegions(PAGE, "div", /data-faq/)).toEqual([]);
  });

  it("spots a script, an island or an inline event handler, and nothing else", () => {
    expect(shipsJavaScript("<div><p>on sale = yes</p></div>")).toBe(false);
    expect(shipsJavaScript('<div><script src="/a.js"></script></div>')).toBe(true);
    expect(shipsJavaScript('<div><astro-island uid="1"></astro-island></div>')).toBe(true);
    expect(shipsJavaScript('<details ontoggle="x()"><summary>Q</summary></details>')).toBe(true);
  });
});
