// Lighthouse 13 through its Node API, in Debian's Chromium started by chrome-launcher: the default
// configuration (mobile form factor, simulated throttling), one fresh browser profile per run so no
// run starts with a warm cache. For a logged-in page the token is put in localStorage first, from a
// tab on the same origin, and Lighthouse is told not to clear storage.
import { existsSync, writeFileSync } from "node:fs";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import { max, median, min } from "./stats.ts";

export const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
];

export function chromePath(): string {
  const path = process.env.CHROME_PATH || "/usr/bin/chromium";
  if (!existsSync(path))
    throw new Error(`No Chromium at ${path}: set CHROME_PATH or apt-get install chromium`);
  return path;
}

export interface LighthouseRun {
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  /** Milliseconds. */
  fcp: number;
  lcp: number;
  tbt: number;
  speedIndex: number;
  cls: number;
  /** Bytes of JavaScript and CSS Lighthouse saw transferred (what the server sent, compressed or not). */
  scriptTransfer: number;
  stylesheetTransfer: number;
  /** Site paths of the scripts the page loaded ("/_astro/x.js"), so their gzip size can be read from the build. */
  scriptPaths: string[];
  /** Audits that cost points in a scored category: "seo: is-crawlable". */
  failedAudits: string[];
  runWarnings: string[];
}

interface Lhr {
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<
    string,
    {
      score: number | null;
      numericValue?: number;
      scoreDisplayMode?: string;
      details?: { items?: unknown[] };
    }
  >;
  runWarnings: string[];
  runtimeError?: { code: string; message: string };
}

const score = (lhr: Lhr, id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
const numeric = (lhr: Lhr, id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;

type NetworkRequest = { url?: string; resourceType?: string; transferSize?: number };

const requests = (lhr: Lhr) => (lhr.audits["network-requests"]?.details?.items ?? []) as NetworkRequest[];

function transferOf(lhr: Lhr, resourceType: string): number {
  return requests(lhr)
    .filter((i) => i.resourceType === resourceType)
    .reduce((sum, i) => sum + (i.transferSize ?? 0), 0);
}

/** The scored categories besides performance (whose score comes from the metrics, reported as such). */
const AUDITED_CATEGORIES = ["accessibility", "best-practices", "seo"];

function failedAudits(lhr: Lhr): string[] {
  const failed: string[] = [];
  for (const category of AUDITED_CATEGORIES) {
    for (const ref of lhr.categories[category]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1)
        failed.push(`${category}: ${ref.id}`);
    }
  }
  return failed;
}

export function summarise(lhr: Lhr): LighthouseRun {
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  return {
    performance: score(lhr, "performance"),
    accessibility: score(lhr, "accessibility"),
    bestPractices: score(lhr, "best-practices"),
    seo: score(lhr, "seo"),
    fcp: numeric(lhr, "first-contentful-paint"),
    lcp: numeric(lhr, "largest-contentful-paint"),
    tbt: numeric(lhr, "total-blocking-time"),
    speedIndex: numeric(lhr, "speed-index"),
    cls: numeric(lhr, "cumulative-layout-shift"),
    scriptTransfer: transferOf(lhr, "Script"),
    stylesheetTransfer: transferOf(lhr, "Stylesheet"),
    scriptPaths: requests(lhr).flatMap((r) =>
      r.resourceType === "Script" && r.url?.startsWith("http") ? [new URL(r.url).pathname] : [],
    ),
    failedAudits: failedAudits(lhr),
    runWarnings: lhr.runWarnings,
  };
}

/** One Chrome DevTools Protocol command on a page target (Node 24's WebSocket; no extra package). */
async function cdp(wsUrl: string, commands: { method: string; params?: unknown }[]): Promise<unknown[]> {
  const socket = new WebSocket(wsUrl);
  await new Promise<void>((done, fail) => {
    socket.addEventListener("open", () => done(), { once: true });
    socket.addEventListener("error", () => fail(new Error(`CDP: cannot connect to ${wsUrl}`)), {
      once: true,
    });
  });
  const results: unknown[] = [];
  try {
    for (const [index, command] of commands.entries()) {
      const id = index + 1;
      results.push(
        await new Promise((done, fail) => {
          const onMessage = (event: MessageEvent) => {
            const message = JSON.parse(String(event.data)) as {
              id?: number;
              result?: unknown;
              error?: unknown;
            };
            if (message.id !== id) return;
            socket.removeEventListener("message", onMessage);
            if (message.error) fail(new Error(`CDP ${command.method}: ${JSON.stringify(message.error)}`));
            else done(message.result);
          };
          socket.addEventListener("message", onMessage);
          socket.send(JSON.stringify({ id, ...command }));
        }),
      );
    }
  } finally {
    socket.close();
  }
  return results;
}

/** Opens `pageUrl` (same origin as the page to audit, and light) in the browser and fills localStorage. */
async function seedLocalStorage(
  port: number,
  pageUrl: string,
  entries: Record<string, string>,
): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    type: string;
    webSocketDebuggerUrl: string;
  }[];
  const page = targets.find((t) => t.type === "page");
  if (!page) throw new Error("CDP: no page target in the launched browser");
  await cdp(page.webSocketDebuggerUrl, [{ method: "Page.navigate", params: { url: pageUrl } }]);
  const deadline = Date.now() + 10_000;
  const expected = new URL(pageUrl).origin;
  for (;;) {
    const [result] = (await cdp(page.webSocketDebuggerUrl, [
      {
        method: "Runtime.evaluate",
        params: { expression: "location.origin + ' ' + document.readyState", returnByValue: true },
      },
    ])) as { result: { value: string } }[];
    if (result?.result.value === `${expected} complete`) break;
    if (Date.now() > deadline) throw new Error(`CDP: ${pageUrl} did not load`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const script = Object.entries(entries)
    .map(([k, v]) => `localStorage.setItem(${JSON.stringify(k)}, ${JSON.stringify(v)});`)
    .join("");
  await cdp(page.webSocketDebuggerUrl, [{ method: "Runtime.evaluate", params: { expression: script } }]);
}

export interface AuditOptions {
  /** localStorage entries to set on the page's origin before the audit (a logged-in page). */
  localStorage?: Record<string, string>;
  /** Write Lighthouse's full result (its JSON report) to this file. */
  saveTo?: string | undefined;
}

/** One Lighthouse run in a freshly launched browser. */
export async function auditOnce(url: string, options: AuditOptions = {}): Promise<LighthouseRun> {
  const chrome = await launch({ chromePath: chromePath(), chromeFlags: CHROME_FLAGS, logLevel: "silent" });
  try {
    if (options.localStorage) {
      // robots.txt: on the origin, and loads nothing else, so the audited page's cache stays cold.
      await seedLocalStorage(chrome.port, new URL("/robots.txt", url).href, options.localStorage);
    }
    const result = await lighthouse(url, {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      ...(options.localStorage ? { disableStorageReset: true } : {}),
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    if (options.saveTo) writeFileSync(options.saveTo, JSON.stringify(result.lhr));
    return summarise(result.lhr as unknown as Lhr);
  } finally {
    chrome.kill();
  }
}

/**
 * auditOnce, tried again (in a new browser) when Lighthouse itself fails, as it sometimes does
 * (NO_NAVSTART: "Something went wrong with recording the trace"); the third failure is thrown.
 */
export async function audit(
  url: string,
  options: AuditOptions = {},
  log: (line: string) => void = () => {},
  attempts = 3,
): Promise<LighthouseRun> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await auditOnce(url, options);
    } catch (error) {
      if (attempt >= attempts) throw error;
      log(`  (${url}: ${error instanceof Error ? error.message : String(error)}; trying again)`);
    }
  }
}

/** A page's runs and their medians (each metric's own median; CLS also its worst run). */
export interface PageLighthouse {
  route: string;
  loggedIn: boolean;
  runs: LighthouseRun[];
  median: Omit<LighthouseRun, "failedAudits" | "runWarnings" | "scriptPaths">;
  minPerformance: number;
  maxCls: number;
  /** Category scores' worst run: a lost point in any run is a finding. */
  minAccessibility: number;
  minBestPractices: number;
  minSeo: number;
  failedAudits: string[];
  runWarnings: string[];
  /** Every script any run loaded, by site path. */
  scriptPaths: string[];
  /** Those scripts' gzip bytes, read from the build (set by the benchmark, which has the build). */
  scriptGzip?: number | undefined;
}

export function aggregateRuns(route: string, loggedIn: boolean, runs: LighthouseRun[]): PageLighthouse {
  const of = (pick: (r: LighthouseRun) => number) => runs.map(pick);
  return {
    route,
    loggedIn,
    runs,
    median: {
      performance: median(of((r) => r.performance)),
      accessibility: median(of((r) => r.accessibility)),
      bestPractices: median(of((r) => r.bestPractices)),
      seo: median(of((r) => r.seo)),
      fcp: median(of((r) => r.fcp)),
      lcp: median(of((r) => r.lcp)),
      tbt: median(of((r) => r.tbt)),
      speedIndex: median(of((r) => r.speedIndex)),
      cls: median(of((r) => r.cls)),
      scriptTransfer: median(of((r) => r.scriptTransfer)),
      stylesheetTransfer: median(of((r) => r.stylesheetTransfer)),
    },
    minPerformance: min(of((r) => r.performance)),
    maxCls: max(of((r) => r.cls)),
    minAccessibility: min(of((r) => r.accessibility)),
    minBestPractices: min(of((r) => r.bestPractices)),
    minSeo: min(of((r) => r.seo)),
    failedAudits: [...new Set(runs.flatMap((r) => r.failedAudits))].sort(),
    runWarnings: [...new Set(runs.flatMap((r) => r.runWarnings))],
    scriptPaths: [...new Set(runs.flatMap((r) => r.scriptPaths))].sort(),
  };
}
