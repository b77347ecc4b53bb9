import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { driverPatchMissing, PATCH_FIXES } from "./driver-patch.ts";

const PATCHED = {
  connection: PATCH_FIXES["connection.js"].join("\n"),
  index: PATCH_FIXES["index.js"].join("\n"),
};

describe("driverPatchMissing", () => {
  it("finds the patch in the postgres.js this project installed", () => {
    expect(driverPatchMissing()).toBeUndefined();
  });

  it("names each file without the patch, and says what to run", () => {
    const files: Record<string, string> = {
      [join("/pg", "src/connection.js")]: PATCHED.connection,
      [join("/pg", "src/index.js")]: "as published",
      [join("/pg", "cjs/src/connection.js")]: "as published",
      [join("/pg", "cjs/src/index.js")]: PATCHED.index,
    };
    expect(driverPatchMissing((file) => files[file] ?? "", "/pg")).toBe(
      "The PostgreSQL driver is not patched (src/index.js, cjs/src/connection.js in /pg): " +
        "run `npx patch-package --error-on-fail` (docs/decisions/037)",
    );
  });

  it("is satisfied only when every file carries every fix of its own", () => {
    const files = (connection: string, index: string) => (file: string) =>
      file.endsWith("index.js") ? index : connection;
    expect(driverPatchMissing(files(PATCHED.connection, PATCHED.index), "/pg")).toBeUndefined();
    // Each fix missing alone (an earlier version of the patch) is told.
    for (const [name, fixes] of Object.entries(PATCH_FIXES))
      for (const fix of fixes) {
        const without = fixes.filter((line) => line !== fix).join("\n");
        const read = name === "index.js" ? files(PATCHED.connection, without) : files(without, PATCHED.index);
        expect(driverPatchMissing(read, "/pg"), `${name} without ${fix}`).toContain(name);
      }
    // A connection.js carrying index.js's fixes is not patched, nor the other way round.
    expect(driverPatchMissing(files(PATCHED.index, PATCHED.connection), "/pg")).toContain(
      "src/connection.js, src/index.js, cjs/src/connection.js, cjs/src/index.js",
    );
  });
});
