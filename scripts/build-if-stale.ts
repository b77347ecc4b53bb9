// Builds the portal when dist/ is missing or older than its inputs, so `npm start` and `npm test`
// always serve what the source says. A stamp records the build-time settings too: a changed
// PUBLIC_API_BASE_URL or PUBLIC_SITE_URL changes the pages' CSP and links, so it forces a rebuild.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// contract/ holds what the pages and the server share, the CDN files' route table and headers too.
const INPUTS = ["src", "public", "contract", "astro.config.mjs", "package-lock.json"];
const STAMP = "dist/.build-stamp.json";

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function buildSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([k]) => k.startsWith("PUBLIC_"))
      .sort(([a], [b]) => a.localeCompare(b)) as [string, string][],
  );
}

export function isBuildStale(root = "."): { stale: boolean; reason: string } {
  const stampPath = join(root, STAMP);
  if (!existsSync(stampPath)) return { stale: true, reason: "no build yet" };
  const stamp = JSON.parse(readFileSync(stampPath, "utf8")) as {
    builtAt: number;
    settings: Record<string, string>;
  };
  if (JSON.stringify(stamp.settings) !== JSON.stringify(buildSettings())) {
    return { stale: true, reason: "PUBLIC_* build settings changed" };
  }
  const newest = Math.max(...INPUTS.map((p) => newestMtime(join(root, p))));
  if (newest > stamp.builtAt) return { stale: true, reason: "sources changed since the last build" };
  return { stale: false, reason: "build is up to date" };
}

export function buildIfStale(root = "."): void {
  const { stale, reason } = isBuildStale(root);
  if (!stale) return;
  console.log(`Building the portal (${reason})...`);
  const startedAt = Date.now();
  const result = spawnSync(process.execPath, [join(root, "node_modules/astro/bin/astro.mjs"), "build"], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0) {
    console.error("The portal build failed; see the messages above.");
    process.exit(result.status ?? 1);
  }
  writeFileSync(join(root, STAMP), JSON.stringify({ builtAt: startedAt, settings: buildSettings() }));
}

if (import.meta.main) buildIfStale();
