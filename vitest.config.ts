import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "{server,src,contract,scripts}/**/*.test.{ts,tsx}",
      "tests/system/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    environment: "node",
    // PGlite instances are heavy (about 2 s and 450 MB each): keep the worker count at the
    // machine's two cores.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
