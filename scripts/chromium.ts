// Finds the Chromium the browser tests drive (CHROME_PATH, else Debian's /usr/bin/chromium) and,
// when there is none, installs Debian's package where that is possible (root and apt-get), as a new
// developer would by hand. Otherwise it names the one command to run, before any test starts.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
export const INSTALL_COMMAND = "apt-get update && apt-get install -y chromium";

export type ChromiumPlan =
  | { kind: "found"; path: string }
  | { kind: "install" }
  | { kind: "missing"; message: string };

export interface Machine {
  chromePath: string | undefined;
  exists: (path: string) => boolean;
  isRoot: boolean;
  hasAptGet: boolean;
}

/** What to do about Chromium on this machine: use it, install it, or stop with instructions. */
export function planChromium({ chromePath, exists, isRoot, hasAptGet }: Machine): ChromiumPlan {
  if (chromePath) {
    return exists(chromePath)
      ? { kind: "found", path: chromePath }
      : { kind: "missing", message: `CHROME_PATH is ${chromePath}, and no file is there.` };
  }
  if (exists(DEBIAN_CHROMIUM)) return { kind: "found", path: DEBIAN_CHROMIUM };
  if (isRoot && hasAptGet) return { kind: "install" };
  const how = hasAptGet ? `sudo sh -c '${INSTALL_COMMAND}'` : "install Chromium and set CHROME_PATH to it";
  return {
    kind: "missing",
    message: `The browser tests need Chromium and none was found at ${DEBIAN_CHROMIUM}: ${how}`,
  };
}

function thisMachine(): Machine {
  return {
    chromePath: process.env.CHROME_PATH || undefined,
    exists: existsSync,
    isRoot: process.getuid?.() === 0,
    hasAptGet: spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0,
  };
}

/** Chromium's path, installing Debian's package first when needed; exits 1 when it cannot. */
export function ensureChromium(): string {
  const plan = planChromium(thisMachine());
  if (plan.kind === "found") return plan.path;
  if (plan.kind === "missing") {
    console.error(plan.message);
    process.exit(1);
  }
  console.log(`No Chromium found: installing Debian's package (${INSTALL_COMMAND}), about a minute.`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (...args: string[]) =>
    spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env }).status === 0;
  if (!(apt("update", "-qq") && apt("install", "-y", "-qq", "chromium") && existsSync(DEBIAN_CHROMIUM))) {
    console.error(`Installing Chromium failed; run it yourself: ${INSTALL_COMMAND}`);
    process.exit(1);
  }
  return DEBIAN_CHROMIUM;
}
