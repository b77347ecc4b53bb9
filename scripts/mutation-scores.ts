// After `stryker run`: each mutated file's score from Stryker's JSON report, and a failure when any
// file is under the bar (Stryker's own `break` threshold applies to the total only).
import { readFileSync } from "node:fs";

const BAR = 95;
const REPORT = "reports/mutation/mutation.json";

interface Mutant {
  status: string;
}

/** Detected / valid mutants, as Stryker counts its mutation score (ignored and no-coverage count as valid but undetected). */
export function fileScore(mutants: readonly Mutant[]): { score: number; survived: number; total: number } {
  const detected = mutants.filter((m) => m.status === "Killed" || m.status === "Timeout").length;
  const valid = mutants.filter((m) => !["CompileError", "RuntimeError", "Ignored"].includes(m.status)).length;
  return { score: valid === 0 ? 100 : (detected / valid) * 100, survived: valid - detected, total: valid };
}

if (import.meta.main) {
  const report = JSON.parse(readFileSync(REPORT, "utf8")) as { files: Record<string, { mutants: Mutant[] }> };
  let failed = false;
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const { score, survived, total } = fileScore(mutants);
    const ok = score >= BAR;
    failed ||= !ok;
    console.log(
      `${ok ? "ok  " : "FAIL"} ${score.toFixed(1).padStart(5)} %  ${file} (${survived} of ${total} undetected)`,
    );
  }
  process.exit(failed ? 1 : 0);
}
