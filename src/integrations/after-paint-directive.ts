// `client:afterpaint` in the browser (see after-paint.ts): hydrate after the first contentful paint,
// when the browser is idle. Astro inlines this into each page that uses it (a few hundred bytes).
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

const afterPaint: ClientDirective = (load) => {
  void firstContentfulPaint().then(() => {
    const hydrate = async () => {
      await (await load())();
    };
    if ("requestIdleCallback" in window) requestIdleCallback(hydrate);
    else setTimeout(hydrate, 200);
  });
};

export default afterPaint;
