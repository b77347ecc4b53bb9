// Per-suite wiring for API tests: one database per suite (see tests/fixtures/test-db.ts), emptied
// before each test, and a fresh app (fresh clock, outbox and rate limiter) for each test.
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { openTestDatabase, type TestDatabase, type TestDatabaseKind } from "../../tests/fixtures/test-db.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "./test-app.ts";

export interface SuiteContext {
  database: TestDatabase;
  t: TestApp;
}

export function useTestApp(kind: TestDatabaseKind, options: TestAppOptions = {}): SuiteContext {
  const ctx = {} as SuiteContext;
  beforeAll(async () => {
    ctx.database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await ctx.database?.close();
  });
  beforeEach(async () => {
    await ctx.database.reset();
    ctx.t = createTestApp(ctx.database.db, options);
  });
  afterEach(async () => {
    // Mail still being sent must not run into the next test's empty tables.
    await ctx.t?.tasks.idle();
  });
  return ctx;
}
