// Per-suite wiring for API tests: one database per suite (see tests/fixtures/test-db.ts), emptied
// before each test, and a fresh app (fresh clock, outbox and rate limiter) for each test. Every
// exchange of every API test is also checked against the OpenAPI document the app serves
// (issue 32, decision 025): a test whose traffic the document does not describe fails, naming
// the operation and the rule.
import type { Hono } from "hono";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { openTestDatabase, type TestDatabase, type TestDatabaseKind } from "../../tests/fixtures/test-db.ts";
import {
  type ConformanceChecker,
  conformanceChecker,
  report,
  type Violation,
} from "./openapi-conformance.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "./test-app.ts";

// One checker per test file: the document is the same for every app the file builds. Files of
// one worker share this module (vitest.config.ts, isolate: false): a new file builds its own.
let checker: { file: string | undefined; ready: Promise<ConformanceChecker> } | undefined;
async function watchConformance(app: Hono): Promise<ConformanceChecker> {
  const file = expect.getState().testPath;
  let current = checker;
  if (!current || current.file !== file) {
    const ready = (async () => {
      const document = await (await app.request("/v1/openapi.json")).json();
      return conformanceChecker(document);
    })();
    current = { file, ready };
    checker = current;
  }
  const ready = await current.ready;
  ready.violations.length = 0;
  ready.watch(app);
  return ready;
}

export interface SuiteContext {
  database: TestDatabase;
  t: TestApp;
  /**
   * This test sends, on purpose, what the document cannot say (`reason`): the broken rules that
   * `which` picks are not held against it; every other one still is. For a difference the
   * document cannot express, never to hide one.
   */
  outsideDocument(reason: string, which: (broken: Violation) => boolean): void;
}

export interface SuiteOptions extends TestAppOptions {
  /** Check each exchange against the OpenAPI document (default); off where a test does so itself. */
  conformance?: boolean;
}

export function useTestApp(kind: TestDatabaseKind, options: SuiteOptions = {}): SuiteContext {
  const { conformance = true, ...appOptions } = options;
  let watching: ConformanceChecker | undefined;
  let excused: ((broken: Violation) => boolean) | undefined;
  const ctx = {
    outsideDocument: (_reason: string, which: (broken: Violation) => boolean) => {
      excused = which;
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
    // Introspections are kept as in production (decision 034): the suites check the invalidation.
    ctx.t = createTestApp(ctx.database.db, { listen: ctx.database.listen, ...appOptions });
    await ctx.t.listening;
    excused = undefined;
    if (conformance) watching = await watchConformance(ctx.t.app);
  });
  afterEach(async () => {
    // Mail still being sent must not run into the next test's empty tables.
    await ctx.t?.tasks.idle();
    await ctx.t?.close();
    const broken = (watching?.violations.splice(0) ?? []).filter((v) => !excused?.(v));
    if (broken.length > 0)
      throw new Error(`The API answered outside its OpenAPI document:\n${report(broken)}`);
  });
  return ctx;
}
