// `client:afterpaint` in the browser (see after-paint.ts): hydrate after the first contentful paint,
// when the browser is idle, one island per idle period. Astro inlines this into each page that uses
// it (a few hundred bytes).
// A page in a background tab paints, and so hydrates, when it is first shown.
import type { ClientDirective } from "astro";

let painted: Promise<void> | undefined;

/** Resolves once the page has had its first contentful paint (one promise for every island). */
function firstContentfulPaint(): Promise<void> {
  painted ??= new Promise<void>((resolve) => {
    const entryTypes =
      typeof PerformanceObserver === "undefined" ? [] : (PerformanceObserver.supportedEntryTypes ?? []);
    if (!entryTypes.includes("paint")) {
      // Without paint timing: after the first frame.
      requestAnimationFrame(() => setTimeout(resolve, 0));
      return;
    }
    const observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName("first-contentful-paint").length === 0) return;
      observer.disconnect();
      resolve();
    });
    observer.observe({ type: "paint", buffered: true });
  });
  return painted;
}

/** Islands whose code is on its way, hydrated one per idle period in page order. */
const waiting: (() => Promise<void>)[] = [];
let draining = false;

const whenIdle = (run: () => void) =>
  "requestIdleCallback" in window ? requestIdleCallback(run) : setTimeout(run, 200);

/**
 * Hydrates the next waiting island in an idle period of its own, then the one after it. Each
 * island's hydration is its own task: when several islands' code arrives at once (one chunk, as on
 * /plans with its ten plan-card islands), hydrating them all in the task that delivered it was one
 * long task, which is what Lighthouse's Total Blocking Time counts.
 */
function drain(): void {
  const next = waiting.shift();
  if (!next) {
    draining = false;
    return;
  }
  draining = true;
  whenIdle(() => void next().finally(drain));
}

const afterPaint: ClientDirective = (load) => {
  void firstContentfulPaint().then(() => {
    // The download starts at once for every island; only the hydrations take turns.
    const hydrator = load();
    waiting.push(async () => (await hydrator)());
    if (!draining) drain();
  });
};

export default afterPaint;
