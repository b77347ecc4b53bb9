import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Counts,
  failureOutsideTests,
  playwrightCounts,
  type RunnerResult,
  runnerLine,
  summaryLine,
  vitestCounts,
} from "./test-summary.ts";

const counts = (passed: number, failed = 0, skipped = 0, failedFiles = 0): Counts => ({
  passed,
  failed,
  skipped,
  failedFiles,
});
const vitest = (c: Counts, status = 0): RunnerResult => ({ runner: "Vitest", counts: c, status });
const playwright = (c: Counts, status = 0): RunnerResult => ({ runner: "Playwright", counts: c, status });

describe("the reports", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const report = (body: unknown) => {
    dir = mkdtempSync(join(tmpdir(), "test-summary-"));
    const file = join(dir, "report.json");
    writeFileSync(file, JSON.stringify(body));
    return file;
  };

  it("reads Vitest's counts, with skipped and todo together and the files that failed outside tests", () => {
    const file = report({
      numPassedTests: 10,
      numFailedTests: 2,
      numPendingTests: 3,
      numTodoTests: 1,
      numFailedTestSuites: 4,
    });
    expect(vitestCounts(file)).toEqual(counts(10, 2, 4, 4));
  });

  it("reads Playwright's counts, a flaky test as passed", () => {
    const file = report({ stats: { expected: 7, unexpected: 1, flaky: 2, skipped: 3 } });
    expect(playwrightCounts(file)).toEqual(counts(9, 1, 3, 0));
  });

  it("counts a missing report as one failure of a runner that did not finish", () => {
    expect(vitestCounts("/nonexistent/vitest.json")).toEqual(counts(0, 1));
    expect(playwrightCounts("/nonexistent/playwright.json")).toEqual(counts(0, 1));
  });

  it("counts a report cut short (a runner killed while writing it) as missing", () => {
    const file = report({});
    writeFileSync(file, '{"numPassedTests": 10, "numFai');
    expect(vitestCounts(file)).toEqual(counts(0, 1));
    expect(playwrightCounts(file)).toEqual(counts(0, 1));
  });
});

describe("failureOutsideTests", () => {
  it("says nothing when the runner passed, or when failed tests already explain its status", () => {
    expect(failureOutsideTests(vitest(counts(5)))).toBeUndefined();
    expect(failureOutsideTests(vitest(counts(5, 1), 1))).toBeUndefined();
  });

  it("names the suites that failed outside their tests", () => {
    expect(failureOutsideTests(vitest(counts(5, 0, 0, 2), 1))).toBe(
      'Vitest exited with status 1: 2 suite(s) failed outside their tests (a hook, or a file that did not load); its report is above, under "FAIL" or "Unhandled Errors".',
    );
  });

  it("says a runner was killed, whatever its counts", () => {
    expect(failureOutsideTests({ ...vitest(counts(0, 1), 1), signal: "SIGKILL" })).toBe(
      "Vitest did not finish: it was killed (SIGKILL).",
    );
  });

  it("names an error outside any test when every test and file passed", () => {
    expect(failureOutsideTests(playwright(counts(5), 1))).toBe(
      'Playwright exited with status 1: an error outside any test (an unhandled error, a setup or a teardown); its report is above, under "FAIL" or "Unhandled Errors".',
    );
  });
});

describe("the summary", () => {
  it("prints each runner's line, the browser's with its browser", () => {
    expect(runnerLine("unit and API", vitest(counts(4, 1)))).toBe(
      "unit and API: 4 passed, 1 failed (Vitest)",
    );
    expect(runnerLine("browser", playwright(counts(3)))).toBe(
      "browser: 3 passed, 0 failed (Playwright, Chromium)",
    );
  });

  it("passes when both runners passed and ran something", () => {
    expect(summaryLine([vitest(counts(4, 0, 1)), playwright(counts(3, 0, 2))])).toEqual({
      line: "tests: 7 passed, 0 failed, 3 skipped",
      ok: true,
    });
  });

  it("fails on a failed test", () => {
    expect(summaryLine([vitest(counts(4, 1), 1), playwright(counts(3))])).toEqual({
      line: "tests: 7 passed, 1 failed, 0 skipped",
      ok: false,
    });
  });

  it("fails, and says which runner, when a runner failed with every test passed", () => {
    expect(summaryLine([vitest(counts(4), 1), playwright(counts(3))])).toEqual({
      line: "tests: 7 passed, 0 failed, 0 skipped; Vitest failed outside the tests (see above)",
      ok: false,
    });
    expect(summaryLine([vitest(counts(4), 1), playwright(counts(3), 1)]).line).toBe(
      "tests: 7 passed, 0 failed, 0 skipped; Vitest and Playwright failed outside the tests (see above)",
    );
  });

  it("fails when nothing ran, or when one runner ran nothing", () => {
    expect(summaryLine([vitest(counts(0)), playwright(counts(0))]).ok).toBe(false);
    expect(summaryLine([vitest(counts(4)), playwright(counts(0))])).toEqual({
      line: "tests: 4 passed, 0 failed, 0 skipped; Playwright ran no tests",
      ok: false,
    });
    expect(summaryLine([vitest(counts(0)), playwright(counts(3))]).ok).toBe(false);
  });

  it("fails when a runner was killed", () => {
    const killed = summaryLine([{ ...vitest(counts(0, 1), 1), signal: "SIGTERM" }, playwright(counts(3))]);
    expect(killed).toEqual({
      line: "tests: 3 passed, 1 failed, 0 skipped; Vitest was killed (SIGTERM)",
      ok: false,
    });
  });
});
