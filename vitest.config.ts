import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "node",
    // PGlite instances are heavy (about 2 s and 450 MB each): keep the worker count at the
    // machine's two cores.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["server/**/*.test.ts", "tests/system/**/*.test.ts"],
          // The server's test files build their own database and a fresh app for every test, and
          // the modules they share keep nothing a test depends on (docs/decisions/042 lists what
          // they keep): a worker loads the app's modules once, not once a file (93 s instead of
          // 123 s for routes/auth and routes/users, back to back).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          // The portal's stores are module-level atoms, and their tests stub globals and timers:
          // each file keeps modules of its own.
          include: ["{src,contract,scripts}/**/*.test.{ts,tsx}", "bench/**/*.test.ts"],
        },
      },
    ],
  },
});
