// The portal's dependency rule (.dependency-cruiser.cjs, "portal-reaches-only-portal-and-contract")
// for the files dependency-cruiser cannot read: .astro components. It parses them as JavaScript,
// the frontmatter's `---` swallows the first import, and it lost imports in 25 of the 31 files
// (measured 2026-11-25 with dependency-cruiser 18.7). Their frontmatter is TypeScript, read here for its imports, and every relative one
// must land where the same rule of the same configuration allows.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const IMPORT = /(?:import|export)\s[^"'`]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

interface Rule {
  name: string;
  from: { path?: string };
  to: { pathNot?: string };
}
const config = createRequire(import.meta.url)(join(ROOT, ".dependency-cruiser.cjs")) as { forbidden: Rule[] };
const portalRule = config.forbidden.find((r) => r.name === "portal-reaches-only-portal-and-contract");

function astroFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return astroFiles(path);
    return entry.name.endsWith(".astro") ? [path] : [];
  });
}

/** The frontmatter: the script between the first two `---` lines (the only script these files have). */
function frontmatter(source: string): string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source);
  return match?.[1] ?? "";
}

/** Every relative import of the .astro files under `folder`, as the repository path it lands on. */
function astroImports(folder: string): { file: string; target: string }[] {
  return astroFiles(join(ROOT, folder)).flatMap((file) => {
    const script = frontmatter(readFileSync(file, "utf8"));
    return [...script.matchAll(IMPORT)]
      .map((m) => m[1] ?? m[2] ?? "")
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => ({
        file: relative(ROOT, file),
        target: relative(ROOT, resolve(dirname(file), specifier)),
      }));
  });
}

describe("the portal's dependency rule in .astro files", () => {
  it("is the rule dependency-cruiser holds for every other portal module", () => {
    expect(portalRule?.from.path).toBe("^src/");
    expect(portalRule?.to.pathNot).toBeDefined();
  });

  it("every relative import of src/'s .astro files lands in src/ or contract/", () => {
    const allowed = new RegExp(portalRule?.to.pathNot ?? "$^");
    const imports = astroImports("src");
    // Sanity: the pages import their layout, components and islands.
    expect(imports.length).toBeGreaterThan(50);
    expect(imports.filter(({ target }) => !allowed.test(target))).toEqual([]);
  });

  it("would catch an import of the server", () => {
    const allowed = new RegExp(portalRule?.to.pathNot ?? "$^");
    expect(allowed.test("server/billing/service.ts")).toBe(false);
    expect(allowed.test("contract/catalogue.ts")).toBe(true);
  });
});
