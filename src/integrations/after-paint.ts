// Build integration: the `client:afterpaint` directive. The island hydrates once the page's first
// contentful paint has happened and the browser is idle: its JavaScript is neither fetched nor run
// before the visitor sees the page. With `client:idle` the idle callback often came before the first
// paint (the main thread is idle while the stylesheet is applied), and Lighthouse's simulation then
// counted the islands' downloads into FCP and LCP: 0.9 s in most runs, up to 1.7 s in others
// (decision 008). The directive's code runs in the browser: after-paint-directive.ts.
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";

export function afterPaintDirective(): AstroIntegration {
  return {
    name: "portal:after-paint-directive",
    hooks: {
      "astro:config:setup": ({ addClientDirective }) => {
        addClientDirective({
          name: "afterpaint",
          entrypoint: fileURLToPath(new URL("./after-paint-directive.ts", import.meta.url)),
        });
      },
    },
  };
}
