// postgres.js runs with patches/postgres+3.4.9.patch (decision 037), which patch-package applies at
// `npm install` (the postinstall script). An install that skipped scripts (`--ignore-scripts`, or
// `ignore-scripts=true` in an .npmrc) leaves the driver as published, with the faults that can
// leave the pool unable to connect or stop the process when a connection dies: the server refuses
// to start on PostgreSQL then, rather than run with them unnoticed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** What every patched file carries, in the comments the patch adds. */
export const PATCH_MARK = "docs/decisions/037";

/**
 * A line of each fix, so that a driver patched by an earlier version of the patch (a cached
 * node_modules, say) is told from one patched by this one.
 */
export const PATCH_FIXES: Readonly<Record<"connection.js" | "index.js", readonly string[]>> = {
  "connection.js": [PATCH_MARK, "query = errorResponse = null", "query && queryError(query, err)"],
  "index.js": [PATCH_MARK, "if (c.reserved !== mine)", "mine = c.reserved = () =>"],
};

/** The patched files, from the package's folder: the ES module build and the CommonJS one. */
const PATCHED_FILES = ["src/connection.js", "src/index.js", "cjs/src/connection.js", "cjs/src/index.js"];

/** The folder of the installed postgres.js (its CommonJS entry is cjs/src/index.js). */
function packageFolder(): string {
  return dirname(dirname(dirname(createRequire(import.meta.url).resolve("postgres"))));
}

/** Undefined when the installed postgres.js carries the patch; otherwise what is wrong, and what to run. */
export function driverPatchMissing(
  read: (file: string) => string = (file) => readFileSync(file, "utf8"),
  folder: string = packageFolder(),
): string | undefined {
  const unpatched = PATCHED_FILES.filter((file) => {
    const text = read(join(folder, file));
    const fixes = PATCH_FIXES[file.endsWith("index.js") ? "index.js" : "connection.js"];
    return !fixes.every((line) => text.includes(line));
  });
  if (unpatched.length === 0) return undefined;
  return (
    `The PostgreSQL driver is not patched (${unpatched.join(", ")} in ${folder}): ` +
    "run `npx patch-package --error-on-fail` (docs/decisions/037)"
  );
}
