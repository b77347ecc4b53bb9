// createApp(deps): the whole HTTP surface, built from injected dependencies so tests can run it
// in-process with app.request() and main.ts only has to read config and listen.
import { Hono } from "hono";
import type { Logger } from "pino";
import { createAccounts } from "./accounts/accounts.ts";
import { type AccountHooks, noAccountHooks } from "./accounts/hooks.ts";
import type { AccessTokens } from "./auth/access-tokens.ts";
import type { PasswordHasher } from "./auth/passwords.ts";
import type { BackgroundTasks } from "./background.ts";
import type { Clock } from "./clock.ts";
import type { Db } from "./db/types.ts";
import type { Config } from "./env.ts";
import { errorHandler } from "./http/errors.ts";
import type { RateLimiter } from "./http/rate-limit.ts";
import { requestLog } from "./http/request-log.ts";
import { securityHeaders } from "./http/security-headers.ts";
import { type Mailer, outboxDir } from "./mail/mailer.ts";
import { devMailRoutes } from "./routes/dev/mail.ts";
import { v1Routes } from "./routes/v1.ts";
import { siteRoutes } from "./site/serve.ts";
import type { Site } from "./site/site.ts";

export type AppConfig = Pick<Config, "TRUST_PROXY" | "NODE_ENV" | "portalUrl" | "corsOrigins" | "dataDir">;

export interface AppDeps {
  config: AppConfig;
  /** The built portal; absent for an API-only instance (portal on a CDN). */
  site?: Site | undefined;
  db: Db;
  mailer: Mailer;
  clock: Clock;
  limiter: RateLimiter;
  logger: Logger;
  /** Where mail sending and other after-the-answer work runs. */
  tasks: BackgroundTasks;
  passwords: PasswordHasher;
  accessTokens: AccessTokens;
  /** Billing plugs in here (free credits on verification). */
  hooks?: AccountHooks | undefined;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const trustProxy = deps.config.TRUST_PROXY;
  app.onError(errorHandler(deps.logger));
  app.use("*", requestLog(deps.logger, trustProxy));
  app.use("*", securityHeaders({ trustProxy }));

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  const accounts = createAccounts({
    db: deps.db,
    clock: deps.clock,
    passwords: deps.passwords,
    mailer: deps.mailer,
    tasks: deps.tasks,
    hooks: deps.hooks ?? noAccountHooks,
    logger: deps.logger,
    portalUrl: deps.config.portalUrl,
  });
  const api = v1Routes(
    {
      db: deps.db,
      clock: deps.clock,
      logger: deps.logger,
      accounts,
      accessTokens: deps.accessTokens,
      limiter: deps.limiter,
      trustProxy,
    },
    deps.config.corsOrigins,
  );
  app.route("/", api);

  if (deps.config.NODE_ENV !== "production") {
    app.route("/_dev", devMailRoutes(outboxDir(deps.config.dataDir), deps.mailer.transport));
  }

  // Last: the portal answers every path nothing above claimed.
  if (deps.site) app.route("/", siteRoutes(deps.site));
  return app;
}
