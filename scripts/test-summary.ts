// What `npm test` prints at its end, from the runners' JSON reports and exit statuses. A runner can
// fail with every test passed: Vitest exits 1 on an error outside any test (an unhandled rejection,
// a failed afterAll hook, a file that does not load), and Playwright on a failed global setup or
// teardown. The summary must then say so, or a failed CI run ends on "0 failed" and its cause is
// thousands of lines above the tail anybody reads.
import { existsSync, readFileSync } from "node:fs";

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Suites (Vitest: files and describe blocks) that failed outside their tests: a hook, or a file that did not load. */
  failedFiles: number;
}

export interface RunnerResult {
  runner: "Vitest" | "Playwright";
  counts: Counts;
  /** The runner's exit status (1 when it was killed). */
  status: number;
  /** The signal that killed the runner, if one did. */
  signal?: string | null;
}

/** A runner whose report is missing or unreadable did not finish: a failure, never a pass. */
const MISSING: Counts = { passed: 0, failed: 1, skipped: 0, failedFiles: 0 };

/** The report's JSON, or undefined when it is missing or cut short (a runner killed while writing). */
function readReport(file: string): unknown {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

export function vitestCounts(file: string): Counts {
  const report = readReport(file);
  if (report === undefined) return MISSING;
  const r = report as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    numFailedTestSuites: number;
  };
  return {
    passed: r.numPassedTests,
    failed: r.numFailedTests,
    skipped: r.numPendingTests + r.numTodoTests,
    failedFiles: r.numFailedTestSuites,
  };
}

export function playwrightCounts(file: string): Counts {
  const report = readReport(file);
  if (report === undefined) return MISSING;
  const r = report as {
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  };
  return {
    passed: r.stats.expected + r.stats.flaky,
    failed: r.stats.unexpected,
    skipped: r.stats.skipped,
    failedFiles: 0,
  };
}

/** Why a runner failed though no test did, in one line; undefined when there is nothing to add. */
export function failureOutsideTests(r: RunnerResult): string | undefined {
  if (r.signal) return `${r.runner} did not finish: it was killed (${r.signal}).`;
  if (r.status === 0 || r.counts.failed > 0) return undefined;
  const where =
    r.counts.failedFiles > 0
      ? `${r.counts.failedFiles} suite(s) failed outside their tests (a hook, or a file that did not load)`
      : "an error outside any test (an unhandled error, a setup or a teardown)";
  return `${r.runner} exited with status ${r.status}: ${where}; its report is above, under "FAIL" or "Unhandled Errors".`;
}

export function runnerLine(label: string, r: RunnerResult): string {
  const runner = r.runner === "Playwright" ? "Playwright, Chromium" : r.runner;
  return `${label}: ${r.counts.passed} passed, ${r.counts.failed} failed (${runner})`;
}

/** The last line: both runners' counts, and whether the run as a whole passed. */
export function summaryLine(results: RunnerResult[]): { line: string; ok: boolean } {
  const sum = (key: "passed" | "failed" | "skipped") => results.reduce((n, r) => n + r.counts[key], 0);
  const passed = sum("passed");
  const failed = sum("failed");
  const killed = results.filter((r) => r.signal).map((r) => `${r.runner} was killed (${r.signal})`);
  const outside = results
    .filter((r) => !r.signal && failureOutsideTests(r) !== undefined)
    .map((r) => r.runner);
  // Each runner must have run something: a runner that found no tests has tested nothing.
  const ok = failed === 0 && results.every((r) => r.status === 0 && r.counts.passed > 0);
  const empty = results
    .filter((r) => r.status === 0 && r.counts.passed === 0 && r.counts.failed === 0)
    .map((r) => `${r.runner} ran no tests`);
  const notes = [
    ...killed,
    ...empty,
    ...(outside.length > 0 ? [`${outside.join(" and ")} failed outside the tests (see above)`] : []),
  ];
  const tail = notes.map((note) => `; ${note}`).join("");
  return { line: `tests: ${passed} passed, ${failed} failed, ${sum("skipped")} skipped${tail}`, ok };
}
