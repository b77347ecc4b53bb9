// @ts-check
// The portal is a static site: every page is prebuilt HTML, and React islands hydrate only what
// depends on the visitor. Astro hashes every script and style it emits into a per-page CSP
// <meta>; server/site.ts lifts that policy into a real Content-Security-Policy header (adding the
// directives a <meta> cannot carry, such as frame-ancestors).
import { createHash } from "node:crypto";
import react from "@astrojs/react";
import sitemap from "@astrojs/sitemap";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import { afterPaintDirective } from "./src/integrations/after-paint.ts";
import { cdnFiles } from "./src/integrations/cdn-files.ts";
import { islandCodeSplitting, plainDynamicImports } from "./src/integrations/island-chunks.ts";
import { precompress } from "./src/integrations/precompress.ts";
import { SESSION_HINT_SCRIPT } from "./src/lib/session-hint.ts";

const site = process.env.PUBLIC_SITE_URL || "http://localhost:4321";
// Where the portal's fetch calls go; empty means the same origin as the pages.
const apiBase = process.env.PUBLIC_API_BASE_URL || "";
const connectSrc = ["'self'", ...(apiBase ? [new URL(apiBase).origin] : [])].join(" ");
// The one inline script Astro does not hash itself (BaseLayout's session hint): its hash, from its text.
/** @type {`sha256-${string}`} */
const sessionHintHash = `sha256-${createHash("sha256").update(SESSION_HINT_SCRIPT).digest("base64")}`;

export default defineConfig({
  site,
  output: "static",
  trailingSlash: "ignore",
  build: { format: "directory" },
  integrations: [
    react(),
    // client:afterpaint, the islands' directive: hydrate after the first paint, when idle.
    afterPaintDirective(),
    sitemap({
      // Pages that only make sense with a token or a session are not for search engines.
      filter: (page) => !/\/(profile|payment|verify-email|reset-password|admin|org|invitations)\b/.test(page),
    }),
    // Writes dist/_redirects and dist/_headers so a CDN serves what server/site serves.
    cdnFiles(),
    // Last: brotli and gzip copies of every text file the build wrote (served by server/site).
    precompress(),
  ],
  security: {
    csp: {
      algorithm: "SHA-256",
      scriptDirective: { hashes: [sessionHintHash] },
      directives: [
        "default-src 'self'",
        `connect-src ${connectSrc}`,
        "img-src 'self' data:",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
      ],
    },
  },
  // The portal renders no Markdown; Shiki's inline styles would break the CSP if it ever did.
  markdown: { syntaxHighlight: false },
  vite: {
    // How the islands' JavaScript is cut into files: src/integrations/island-chunks.ts.
    plugins: [tailwindcss(), plainDynamicImports()],
    environments: {
      client: { build: { rolldownOptions: { output: { codeSplitting: islandCodeSplitting() } } } },
    },
  },
});
