// What the figures were measured on: they mean little without it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type } from "node:os";

export interface Machine {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  chromium: string;
  lighthouse: string;
  autocannon: string;
  /** One-minute load average when the run started: other work on the machine skews the figures. */
  loadAverage: number;
  /** The same when the run ended (set by the caller). */
  loadAverageAtEnd?: number;
}

export function loadAverageNow(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")) as { version: string })
      .version;
  } catch {
    return "not installed";
  }
}

export function chromiumVersion(path: string): string {
  try {
    return execFileSync(path, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return `unknown (${path} --version failed)`;
  }
}

export function describeMachine(chromiumPath: string, now = new Date()): Machine {
  const list = cpus();
  return {
    date: now.toISOString(),
    cpu: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    chromium: chromiumVersion(chromiumPath),
    lighthouse: packageVersion("lighthouse"),
    autocannon: packageVersion("autocannon"),
    loadAverage: loadAverageNow(),
  };
}
