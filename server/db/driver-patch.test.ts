import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { driverPatchMissing, PATCH_MARK } from "./driver-patch.ts";

describe("driverPatchMissing", () => {
  it("finds the patch in the postgres.js this project installed", () => {
    expect(driverPatchMissing()).toBeUndefined();
  });

  it("names each file without the patch, and says what to run", () => {
    const files: Record<string, string> = {
      [join("/pg", "src/connection.js")]: `// ${PATCH_MARK}`,
      [join("/pg", "src/index.js")]: "as published",
      [join("/pg", "cjs/src/connection.js")]: "as published",
      [join("/pg", "cjs/src/index.js")]: `// ${PATCH_MARK}`,
    };
    expect(driverPatchMissing((file) => files[file] ?? "", "/pg")).toBe(
      "The PostgreSQL driver is not patched (src/index.js, cjs/src/connection.js in /pg): " +
        "run `npx patch-package --error-on-fail` (docs/decisions/037)",
    );
  });

  it("is satisfied only when every file carries it", () => {
    expect(driverPatchMissing(() => `x ${PATCH_MARK} y`, "/pg")).toBeUndefined();
    expect(driverPatchMissing(() => "docs/decisions/036", "/pg")).toContain(
      "src/connection.js, src/index.js, cjs/src/connection.js, cjs/src/index.js",
    );
  });
});
