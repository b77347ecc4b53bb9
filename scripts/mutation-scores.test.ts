import { describe, expect, it } from "vitest";
import { fileScore } from "./mutation-scores.ts";

const m = (status: string) => ({ status });

describe("fileScore (Stryker's mutation score for one file)", () => {
  it.each([
    [[m("Killed"), m("Killed"), m("Timeout"), m("Survived")], 75, 1, 4],
    [[m("Killed"), m("NoCoverage")], 50, 1, 2],
    [[m("Killed"), m("CompileError"), m("Ignored"), m("RuntimeError")], 100, 0, 1],
    [[], 100, 0, 0],
  ])("%j scores %d with %d undetected of %d", (mutants, score, survived, total) => {
    expect(fileScore(mutants)).toEqual({ score, survived, total });
  });
});
