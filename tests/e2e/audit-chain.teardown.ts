// After every browser journey (staff grants, refunds, role changes, sign-ins, keys): the e2e
// server's audit log must still verify, as an operator checks it with `npm run audit:verify`.
// A failure here fails the run (Playwright reports a global teardown's error and exits non-zero).
import { runCli } from "../fixtures/cli.ts";

export default async function verifyAuditChainAfterJourneys(): Promise<void> {
  const run = await runCli("scripts/audit-verify.ts", [], {
    DATA_DIR: process.env.E2E_DATA_DIR,
    LOG_LEVEL: "silent",
  });
  const said = `${run.stdout}${run.stderr}`.trim();
  if (run.status !== 0) throw new Error(`npm run audit:verify after the journeys failed: ${said}`);
  console.log(`audit:verify after the journeys: ${said.split("\n")[0]}`);
}
