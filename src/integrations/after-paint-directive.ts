// `client:afterpaint` in the browser (see after-paint.ts): hydrate after the first contentful paint,
// when the browser is idle, one island per task. Astro inlines this into each page that uses it (a few
// hundred bytes).
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

/** Islands whose code is on its way, hydrated one per task in page order. */
const waiting: (() => Promise<void>)[] = [];
let draining = false;

const whenIdle = () =>
  new Promise<void>((resolve) =>
    "requestIdleCallback" in window ? requestIdleCallback(() => resolve()) : setTimeout(resolve, 200),
  );
/** A task boundary: the browser may paint and handle input before the next island. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Hydrates the waiting islands one at a time, starting in an idle period, with a task boundary
 * between two islands. When several islands' code arrives at once (one chunk, as on /plans with its
 * sixteen islands), hydrating them all in the task that delivered it was one long task, which is
 * what Lighthouse's Total Blocking Time counts. Waiting for an idle period before each island instead
 * held the last ones back for seconds on a busy machine.
 */
async function drain(): Promise<void> {
  draining = true;
  await whenIdle();
  for (let next = waiting.shift(); next; next = waiting.shift()) {
    // One island's failure is reported (as an uncaught error, as before) without stopping the rest.
    await next().catch((error: unknown) => {
      setTimeout(() => {
        throw error;
      });
    });
    await nextTask();
  }
  draining = false;
}

const afterPaint: ClientDirective = (load) => {
  void firstContentfulPaint().then(() => {
    // The download starts at once for every island; only the hydrations take turns.
    const hydrator = load();
    waiting.push(async () => (await hydrator)());
    if (!draining) void drain();
  });
};

export default afterPaint;
