// Hono routes that answer the portal's pages and static assets from a loaded build.
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { routeKeyForPath } from "../../contract/site/routes.ts";
import { chooseEncoding, type Encoding } from "./encoding.ts";
import { portalOriginRedirect } from "./portal-origin.ts";
import type { Site, SitePage } from "./site.ts";

function pageResponse(
  page: SitePage,
  status: 200 | 404,
  ifNoneMatch: string | undefined,
  acceptEncoding: string | undefined,
): Response {
  const encoding = chooseEncoding(acceptEncoding, Object.keys(page.encoded) as Encoding[]);
  const body = encoding ? page.encoded[encoding] : undefined;
  // Each encoding is its own representation, so it gets its own validator.
  const etag = encoding ? `${page.etag.slice(0, -1)}-${encoding}"` : page.etag;
  const headers = new Headers({
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": page.csp,
    // Pages are small and change with every deploy: always revalidate, the ETag makes it cheap.
    "Cache-Control": "no-cache",
    ETag: etag,
    Vary: "Accept-Encoding",
  });
  if (encoding) headers.set("Content-Encoding", encoding);
  if (status === 200 && ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  return new Response(body ? new Uint8Array(body) : page.html, { status, headers });
}

/** `portalUrl`: PORTAL_URL, whose origin a page asked for under another loopback name is sent to. */
export function siteRoutes(site: Site, portalUrl: string): Hono {
  const app = new Hono();
  const notFound = site.pages.get("/404");

  // Hashed bundles never change under the same name.
  app.use("/_astro/*", async (c, next) => {
    await next();
    if (c.res.status === 200) c.res.headers.set("Cache-Control", "public, max-age=31536000, immutable");
  });

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const key = routeKeyForPath(c.req.path);
    const page = key === undefined || key === "/404" ? undefined : site.pages.get(key);
    const elsewhere = page ? portalOriginRedirect(c.req.url, portalUrl) : undefined;
    if (elsewhere) return c.redirect(elsewhere, 307);
    if (page) return pageResponse(page, 200, c.req.header("if-none-match"), c.req.header("accept-encoding"));
    return next();
  });

  // Assets: the build's .br/.gz copy when the browser takes it (src/integrations/precompress).
  app.use("*", serveStatic({ root: site.distDir, precompressed: true }));

  app.on(["GET", "HEAD"], "*", (c) => {
    if (notFound) return pageResponse(notFound, 404, undefined, c.req.header("accept-encoding"));
    return c.text("Not Found", 404);
  });
  return app;
}
