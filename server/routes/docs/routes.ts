// The OpenAPI document (/v1/openapi.json) and interactive docs (/v1/docs). Swagger UI's files are
// served from the installed swagger-ui-dist package, so the docs work offline and under a strict
// page policy: scripts and styles only from this origin, no inline script, no CDN, no outside calls.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { compress } from "hono/compress";
import { PRODUCT_NAME } from "../../../contract/brand.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { ROOT_PATHS } from "../../http/openapi.ts";

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));
const SWAGGER_VERSION = (require("swagger-ui-dist/package.json") as { version: string }).version;

/** The files of swagger-ui-dist the page uses; nothing else in the package is reachable. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Checked in Chromium: Swagger UI renders and its dialogs work without 'unsafe-inline' styles.
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The document with the paths in `rootPaths` moved out from under `prefix`: the generator puts the
 * API's base path in front of every path it knows, and the JWKS lives at the origin's root.
 */
export function outsidePrefix<D extends { paths?: Record<string, unknown> }>(
  document: D,
  prefix: string,
  rootPaths: readonly string[],
): D {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).map(([path, item]) => {
      const unprefixed = path.startsWith(prefix) ? path.slice(prefix.length) : path;
      return [rootPaths.includes(unprefixed) ? unprefixed : path, item];
    }),
  );
  return { ...document, paths };
}

/** `prefix` is where the API is mounted ("/v1"). */
export function docsPage(prefix: string): string {
  const asset = (name: string) => `${prefix}/docs/assets/${SWAGGER_VERSION}/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${PRODUCT_NAME} API</title>
<link rel="stylesheet" href="${asset("swagger-ui.css")}">
<link rel="icon" type="image/png" href="${asset("favicon-32x32.png")}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset("swagger-ui-bundle.js")}"></script>
<script src="${prefix}/docs/init.js"></script>
</body>
</html>
`;
}

export function docsInitScript(prefix: string): string {
  // validatorUrl null: Swagger UI would otherwise load a badge from validator.swagger.io.
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${prefix}/openapi.json`)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;
}

export function docsRoutes(app: OpenAPIHono<AppEnv>, prefix: string): void {
  const config = {
    openapi: "3.1.0" as const,
    // Relative: the document is served by the API it describes, wherever that is deployed.
    // Every deployment serves the document that describes it, so the one server is "this one",
    // and it is public: the portal's own calls and customers' programs use the same API.
    servers: [
      {
        url: "/",
        description: "The server this document was fetched from: production, staging or local development",
        "x-internal": false,
      },
    ],
    info: {
      title: `${PRODUCT_NAME} account and billing API`,
      version: "1",
      license: { name: "Proprietary", url: "https://www.example.com/terms" },
      description:
        "Errors are JSON `{detail}`; request validation errors are 422 `{detail: [{loc, msg, type}]}`. " +
        "Authenticate with `Authorization: Bearer <access_token>` from `POST /v1/token`; the generation " +
        "service authenticates with a service key. Access tokens are JWTs signed with EdDSA or ES256: " +
        "verify them with the public keys at `/.well-known/jwks.json` (by `kid`).",
    },
  };
  // Built once: the routes do not change while the process runs.
  let document: string | undefined;
  app.get("/openapi.json", (c) => {
    document ??= JSON.stringify(outsidePrefix(app.getOpenAPI31Document(config), prefix, ROOT_PATHS));
    return c.body(document, 200, { "Content-Type": "application/json" });
  });

  const page = docsPage(prefix);
  app.get("/docs", (c) =>
    c.html(page, 200, { "Content-Security-Policy": DOCS_CSP, "Cache-Control": "no-cache" }),
  );
  const init = docsInitScript(prefix);
  app.get("/docs/init.js", (c) =>
    c.body(init, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" }),
  );

  const cache = new Map<string, Promise<Buffer>>();
  app.get(`/docs/assets/${SWAGGER_VERSION}/:file`, compress(), async (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.json({ detail: "Not Found" }, 404);
    let body = cache.get(file);
    if (!body) {
      body = readFile(join(SWAGGER_DIR, file));
      cache.set(file, body);
    }
    return c.body(new Uint8Array(await body), 200, {
      "Content-Type": type,
      // The version is in the path: a new swagger-ui-dist gets new URLs.
      "Cache-Control": "public, max-age=31536000, immutable",
    });
  });
}
