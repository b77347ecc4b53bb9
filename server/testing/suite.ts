// Per-suite wiring for API tests: one database per suite (see tests/fixtures/test-db.ts), emptied
// before each test, and a fresh app (fresh clock, outbox and rate limiter) for each test. Every
// exchange of every API test is also checked against the OpenAPI document the app serves
// (issue 32, decision 025): a test whose traffic the document does not describe fails, naming
// the operation and the rule.
import type { Hono } from "hono";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { openTestDatabase, type TestDatabase, type TestDatabaseKind } from "../../tests/fixtures/test-db.ts";
import { type ConformanceChecker, conformanceChecker, report } from "./openapi-conformance.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "./test-app.ts";

// One checker per test file: the document is the same for every app the file builds.
let checker: Promise<ConformanceChecker> | undefined;
async function watchConformance(app: Hono): Promise<ConformanceChecker> {
  checker ??= (async () => {
    const document = await (await app.request("/v1/openapi.json")).json();
    return conformanceChecker(document);
  })();
  const ready = await checker;
  ready.violations.length = 0;
  ready.watch(app);
  return ready;
}

export interface SuiteContext {
  database: TestDatabase;
  t: TestApp;
  /**
   * This test sends, on purpose, what the document cannot say (the reason is the argument): its
   * exchanges are not judged. For a difference the document cannot express, never to hide one.
   */
  outsideDocument(reason: string): void;
}

export interface SuiteOptions extends TestAppOptions {
  /** Check each exchange against the OpenAPI document (default); off where a test does so itself. */
  conformance?: boolean;
}

export function useTestApp(kind: TestDatabaseKind, options: SuiteOptions = {}): SuiteContext {
  const { conformance = true, ...appOptions } = options;
  let watching: ConformanceChecker | undefined;
  let excused: string | undefined;
  const ctx = {
    outsideDocument: (reason: string) => {
      excused = reason;
    },
  } as SuiteContext;
  beforeAll(async () => {
    ctx.database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await ctx.database?.close();
  });
  beforeEach(async () => {
    await ctx.database.reset();
    ctx.t = createTestApp(ctx.database.db, appOptions);
    excused = undefined;
    if (conformance) watching = await watchConformance(ctx.t.app);
  });
  afterEach(async () => {
    // Mail still being sent must not run into the next test's empty tables.
    await ctx.t?.tasks.idle();
    const broken = watching?.violations.splice(0) ?? [];
    if (broken.length > 0 && excused === undefined)
      throw new Error(`The API answered outside its OpenAPI document:\n${report(broken)}`);
  });
  return ctx;
}
