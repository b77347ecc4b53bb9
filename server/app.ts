// createApp(deps): the whole HTTP surface, built from injected dependencies so tests can run it
// in-process with app.request() and main.ts only has to read config and listen.
import { Hono } from "hono";
import type { Config } from "./env.ts";
import { securityHeaders } from "./http/security-headers.ts";
import { siteRoutes } from "./site/serve.ts";
import type { Site } from "./site/site.ts";

export interface AppDeps {
  config: Pick<Config, "TRUST_PROXY" | "NODE_ENV">;
  /** The built portal; absent for an API-only instance (portal on a CDN). */
  site?: Site | undefined;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use("*", securityHeaders({ trustProxy: deps.config.TRUST_PROXY }));

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  if (deps.site) app.route("/", siteRoutes(deps.site));
  return app;
}
