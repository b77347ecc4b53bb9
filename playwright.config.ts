// Browser journeys in Debian's Chromium (never a downloaded browser) against the real server,
// started here on its own port with a fresh data folder (fresh PGlite database and outbox).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT || 4399);
const dataDir = process.env.E2E_DATA_DIR || mkdtempSync(join(tmpdir(), "portal-e2e-"));
process.env.E2E_DATA_DIR = dataDir; // workers re-read the config: keep one folder for the whole run

export default defineConfig({
  testDir: "tests/e2e",
  // npm run audit:verify against the server's data once every journey is done (staff actions included).
  globalTeardown: "./tests/e2e/audit-chain.teardown.ts",
  // Playwright empties its output folder at start: keep it apart from the Vitest report in test-results/.
  outputDir: "test-results/playwright",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: true,
  // The longest journeys (a key's whole life, the console's grant) take 25 to 31 s on a quiet
  // machine, and CI's run of 84f0dd6 took twice to three times as long for every journey (its
  // browser phase 48 min): two of them passed 60 s there. Room for that, no retries; a step that
  // never comes still fails at its own expect timeout.
  timeout: 120_000,
  // Page loads and hydration on a loaded 2-core machine: 5 s was seen short after a reload.
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    },
    // A trace records every test and costs about a fifth of the run (22 journeys: 193 s with it,
    // 154 s without). CI keeps no artefacts, so .ci/run turns it off (E2E_TRACE=off); locally a
    // failure keeps its trace for `npx playwright show-trace`.
    trace: process.env.E2E_TRACE === "off" ? "off" : "retain-on-failure",
  },
  webServer: {
    // The Node running Playwright (24, from the node devDependency), whatever `node` is on PATH.
    command: `"${process.execPath}" server/main.ts`,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      // Mail links and the hosted checkout's return URLs point at the portal under test.
      PORTAL_URL: `http://127.0.0.1:${port}`,
      // Development on loopback: the outbox (/_dev/mail.json) the journeys read their mail from.
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      // Every journey comes from 127.0.0.1: the per-IP limits would stop the suite, not an attacker.
      // Per-account and per-address limits stay at their defaults (and have their own API tests).
      RATE_LIMIT_REGISTER_PER_MINUTE: "1000",
      RATE_LIMIT_TOKEN_PER_MINUTE: "1000",
      RATE_LIMIT_EMAIL_IP_PER_MINUTE: "1000",
    },
  },
});
