// ARCHITECTURE.md's dependency rule, checked on the source: the portal (src/) and the shared
// contract (contract/) never import from server/, and contract/ imports from neither side.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const SOURCE = /\.(ts|tsx|astro|mjs)$/;
const IMPORT = /(?:import|export)\s[^"'`]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** Every relative import of `folder`'s files, as the top-level folder it lands in. */
function importsOf(folder: string): { file: string; target: string }[] {
  return sourceFiles(join(ROOT, folder)).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(IMPORT)]
      .map((m) => m[1] ?? m[2] ?? "")
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => ({
        file: relative(ROOT, file),
        target: relative(ROOT, resolve(dirname(file), specifier)).split("/")[0] ?? "",
      })),
  );
}

describe("dependency rule", () => {
  it.each([
    ["src", ["src", "contract"]],
    ["contract", ["contract"]],
  ])("%s/ imports only from %j", (folder, allowed) => {
    const imports = importsOf(folder);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter(({ target }) => !allowed.includes(target))).toEqual([]);
  });
});
