// `npm test`: every test the project has, in one run. Unit and API tests (Vitest), then browser
// journeys (Playwright in Debian's Chromium against the real server). It says which database the
// database tests used, and closes with one summary line counting both runners.
//
// Database choice: TEST_DATABASE_URL if set (then it must be reachable); otherwise PostgreSQL on
// 127.0.0.1:5432 if something answers there; otherwise PGlite only. REQUIRE_POSTGRES=1 (set by
// .ci/run) turns "no PostgreSQL" into a failure instead of a fallback. Redis, for the shared rate
// limits, is chosen the same way (TEST_REDIS_URL, else 127.0.0.1:6379, else its tests say skipped).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { buildIfStale } from "./build-if-stale.ts";
import { ensureChromium } from "./chromium.ts";
import {
  failureOutsideTests,
  playwrightCounts,
  type RunnerResult,
  runnerLine,
  summaryLine,
  vitestCounts,
} from "./test-summary.ts";

const DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/test";
const DEFAULT_REDIS = "redis://127.0.0.1:6379";
const REPORT_DIR = "test-results";

function reachable(url: string, timeoutMs = 1500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The URL of a service to test against, or undefined to fall back; exits when it is required. */
async function chooseService(
  name: string,
  explicit: string | undefined,
  fallback: string,
  required: boolean,
): Promise<string | undefined> {
  const candidate = explicit || fallback;
  if (await reachable(candidate)) return candidate;
  if (explicit || required) {
    console.error(`${name} at ${new URL(candidate).host} is not reachable, and this run requires it.`);
    process.exit(1);
  }
  return undefined;
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv): { status: number; signal: string | null } {
  const result = spawnSync(process.execPath, [bin, ...args], { stdio: "inherit", env });
  return { status: result.status ?? 1, signal: result.signal };
}

/**
 * How long the runners took, and when .ci/run says when it started (CI_STARTED_AT, Unix seconds),
 * the whole CI run so far: printed here, before the summary, so the summary stays the last line.
 */
function timeLine(unitSeconds: number, e2eSeconds: number): string {
  const parts = [`unit and API ${unitSeconds} s`, `browser ${e2eSeconds} s`];
  const ciStarted = Number(process.env.CI_STARTED_AT);
  if (Number.isInteger(ciStarted) && ciStarted > 0) {
    parts.push(`.ci/run in all ${Math.round(Date.now() / 1000 - ciStarted)} s`);
  }
  return parts.join(", ");
}

// Before anything else: a missing browser should cost a minute's install or one clear line, not a
// failed run after the unit tests.
const chromePath = ensureChromium();
const required = process.env.REQUIRE_POSTGRES === "1";
const pg = await chooseService("PostgreSQL", process.env.TEST_DATABASE_URL, DEFAULT_PG, required);
const redis = await chooseService("Redis", process.env.TEST_REDIS_URL, DEFAULT_REDIS, required);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  CHROME_PATH: chromePath,
  ...(pg ? { TEST_DATABASE_URL: pg } : {}),
  ...(redis ? { TEST_REDIS_URL: redis } : {}),
};
console.log(
  pg
    ? `Database tests run on PGlite and on PostgreSQL (${new URL(pg).host}${new URL(pg).pathname}).`
    : "Database tests run on PGlite only: no PostgreSQL is reachable (set TEST_DATABASE_URL to use one).",
);
console.log(
  redis
    ? `Shared rate-limit tests run on Redis (${new URL(redis).host}).`
    : "Shared rate-limit tests are skipped: no Redis is reachable (set TEST_REDIS_URL to use one).",
);

rmSync(REPORT_DIR, { recursive: true, force: true });
mkdirSync(REPORT_DIR, { recursive: true });
buildIfStale();

const started = Date.now();
const unitRun = run(
  "node_modules/vitest/vitest.mjs",
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${REPORT_DIR}/vitest.json`],
  env,
);
const unitSeconds = Math.round((Date.now() - started) / 1000);
const e2eStarted = Date.now();
const e2eRun = run("node_modules/@playwright/test/cli.js", ["test"], {
  ...env,
  PLAYWRIGHT_JSON_OUTPUT_NAME: `${REPORT_DIR}/playwright.json`,
});

const results: RunnerResult[] = [
  { runner: "Vitest", counts: vitestCounts(`${REPORT_DIR}/vitest.json`), ...unitRun },
  { runner: "Playwright", counts: playwrightCounts(`${REPORT_DIR}/playwright.json`), ...e2eRun },
];
const [unit, e2e] = results as [RunnerResult, RunnerResult];
console.log(`\n${runnerLine("unit and API", unit)}`);
console.log(runnerLine("browser", e2e));
for (const r of results) {
  const why = failureOutsideTests(r);
  if (why) console.log(why);
}
console.log(`database: ${pg ? "PGlite and PostgreSQL" : "PGlite only"}; Redis: ${redis ? "yes" : "no"}`);
console.log(`time: ${timeLine(unitSeconds, Math.round((Date.now() - e2eStarted) / 1000))}`);
const summary = summaryLine(results);
console.log(summary.line);
process.exit(summary.ok ? 0 : 1);
