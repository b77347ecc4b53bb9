// createApp(deps): the whole HTTP surface, built from injected dependencies so tests can run it
// in-process with app.request() and main.ts only has to read config and listen.
import { Hono } from "hono";
import type { Logger } from "pino";
import { PRODUCT_NAME } from "../contract/brand.ts";
import { createAccounts } from "./accounts/accounts.ts";
import type { AccountHooks } from "./accounts/hooks.ts";
import { createPasskeys } from "./accounts/passkeys.ts";
import { createSecurityMails } from "./accounts/security-mails.ts";
import { createTwoFactor } from "./accounts/two-factor.ts";
import { createLowBalanceAlerts } from "./alerts/low-balance.ts";
import { createMemberCapAlerts } from "./alerts/member-cap.ts";
import type { IntrospectionCache } from "./api-access/introspection-cache.ts";
import { createLastUsed } from "./api-access/last-used.ts";
import { cachedServiceKeyCheck } from "./api-access/service-keys.ts";
import type { AccessTokens } from "./auth/access-tokens.ts";
import { createCodeGuessingAlert } from "./auth/code-guessing.ts";
import type { MfaSecrets } from "./auth/mfa-secrets.ts";
import type { PasswordHasher } from "./auth/passwords.ts";
import type { TokenRevocations } from "./auth/token-revocations.ts";
import type { BackgroundTasks } from "./background.ts";
import { createAutoTopUp } from "./billing/auto-top-up/auto-top-up.ts";
import { createBillingMailSender } from "./billing/billing-mails.ts";
import { createBilling } from "./billing/service.ts";
import type { Clock } from "./clock.ts";
import type { Db } from "./db/types.ts";
import type { Config } from "./env.ts";
import { errorHandler } from "./http/errors.ts";
import { fixedHeaders } from "./http/fixed-headers.ts";
import type { RateLimiter } from "./http/rate-limit.ts";
import { requestLog } from "./http/request-log.ts";
import { type Mailer, outboxDir } from "./mail/mailer.ts";
import { createOrgMails } from "./orgs/org-mails.ts";
import { JWKS_PATH, jwksHandler } from "./routes/api-access/jwks.ts";
import { checkoutApplication } from "./routes/checkout/page.ts";
import { devBillingRoutes } from "./routes/dev/billing.ts";
import { devMailRoutes } from "./routes/dev/mail.ts";
import { API_PREFIX, v1Routes } from "./routes/v1.ts";
import type { AppPayments } from "./select-payments.ts";
import { siteRoutes } from "./site/serve.ts";
import type { Site } from "./site/site.ts";

export type AppConfig = Pick<
  Config,
  | "TRUST_PROXY"
  | "NODE_ENV"
  | "devPages"
  | "portalUrl"
  | "corsOrigins"
  | "dataDir"
  | "FREE_INITIAL_CREDITS"
  | "SUPPORT_GRANT_LIMIT"
  | "SUPPORT_GRANT_DAILY_LIMIT"
  | "seller"
>;

export interface AppDeps {
  config: AppConfig;
  /** The built portal; absent for an API-only instance (portal on a CDN). */
  site?: Site | undefined;
  db: Db;
  mailer: Mailer;
  clock: Clock;
  /** Real time, when `clock` may run ahead of it (the billing clock): two-factor codes are read by it. */
  realClock?: Clock | undefined;
  limiter: RateLimiter;
  logger: Logger;
  /** Where mail sending and other after-the-answer work runs. */
  tasks: BackgroundTasks;
  passwords: PasswordHasher;
  accessTokens: AccessTokens;
  /** Access tokens signed out one at a time (the accessTokens above refuse them). */
  revocations: TokenRevocations;
  /** Seals two-factor secrets and digests recovery codes (MFA_ENCRYPTION_KEY). */
  mfaSecrets: MfaSecrets;
  /** Active API key introspections for up to 1 s (decision 034); absent: every call reads. */
  introspectionCache?: IntrospectionCache | undefined;
  payments: AppPayments;
  /** Replaces billing's account hooks (free credits on verification); for tests of the account flow. */
  hooks?: AccountHooks | undefined;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  const trustProxy = deps.config.TRUST_PROXY;
  app.onError(errorHandler(deps.logger));
  app.use("*", requestLog(deps.logger, trustProxy));
  app.use("*", fixedHeaders({ trustProxy, apiPrefix: API_PREFIX }));

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get(JWKS_PATH, jwksHandler(deps.accessTokens));

  // The local checkout delivers the events of a change soon after it; Stripe sends its own.
  const afterProviderChange = deps.payments.local ? deps.payments.local.deliverSoon : () => {};
  const billingMails = createBillingMailSender({
    db: deps.db,
    clock: deps.clock,
    mailer: deps.mailer,
    tasks: deps.tasks,
    logger: deps.logger,
  });
  const autoTopUp = createAutoTopUp({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    catalogue: deps.payments.catalogue,
    provider: deps.payments.provider,
    seller: deps.config.seller,
    portalUrl: deps.config.portalUrl,
    background: deps.tasks,
    mails: billingMails,
  });
  const billing = createBilling({
    autoTopUp,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    catalogue: deps.payments.catalogue,
    provider: deps.payments.provider,
    freeInitialCredits: deps.config.FREE_INITIAL_CREDITS,
    portalUrl: deps.config.portalUrl,
    seller: deps.config.seller,
    mails: billingMails,
    afterProviderChange,
  });
  const accounts = createAccounts({
    db: deps.db,
    clock: deps.clock,
    passwords: deps.passwords,
    mailer: deps.mailer,
    tasks: deps.tasks,
    hooks: deps.hooks ?? billing.hooks,
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
      revocations: deps.revocations,
      twoFactor: createTwoFactor({
        db: deps.db,
        clock: deps.clock,
        codeClock: deps.realClock ?? deps.clock,
        secrets: deps.mfaSecrets,
        issuer: PRODUCT_NAME,
      }),
      passkeys: createPasskeys({
        db: deps.db,
        clock: deps.clock,
        rpName: PRODUCT_NAME,
        portalUrl: deps.config.portalUrl,
      }),
      limiter: deps.limiter,
      tiers: (productId) => deps.payments.catalogue.findTier(productId)?.tier,
      lastUsed: createLastUsed(deps.db, deps.tasks),
      introspectionCache: deps.introspectionCache,
      securityMails: createSecurityMails({
        db: deps.db,
        mailer: deps.mailer,
        tasks: deps.tasks,
        logger: deps.logger,
        portalUrl: deps.config.portalUrl,
      }),
      codeGuessingAlert: createCodeGuessingAlert({
        db: deps.db,
        mailer: deps.mailer,
        tasks: deps.tasks,
        portalUrl: deps.config.portalUrl,
      }),
      lowBalance: createLowBalanceAlerts({
        db: deps.db,
        mailer: deps.mailer,
        tasks: deps.tasks,
        logger: deps.logger,
        portalUrl: deps.config.portalUrl,
      }),
      memberCaps: createMemberCapAlerts({
        db: deps.db,
        clock: deps.clock,
        tasks: deps.tasks,
        sender: billingMails,
        logger: deps.logger,
        portalUrl: deps.config.portalUrl,
      }),
      autoTopUp,
      orgMails: createOrgMails({
        mailer: deps.mailer,
        tasks: deps.tasks,
        portalUrl: deps.config.portalUrl,
        sender: billingMails,
      }),
      serviceKeys: cachedServiceKeyCheck(deps.db),
      trustProxy,
      allowBackdatedCharges: deps.config.NODE_ENV === "development",
    },
    deps.config.corsOrigins,
    { billing, catalogue: deps.payments.catalogue },
    {
      supportGrantLimits: {
        perGrant: deps.config.SUPPORT_GRANT_LIMIT,
        perDay: deps.config.SUPPORT_GRANT_DAILY_LIMIT,
      },
      provider: deps.payments.provider,
      afterProviderChange,
    },
    { seller: deps.config.seller, portalUrl: deps.config.portalUrl },
  );
  app.route("/", api);

  const local = deps.payments.local;
  // Off on a public HOST (select-payments.ts): anyone who reached it could pay with a test card.
  if (local && deps.payments.checkoutPages !== false) {
    const catalogue = deps.payments.catalogue;
    const checkout = checkoutApplication(
      {
        provider: local.provider,
        portalUrl: deps.config.portalUrl,
        sellerCountry: deps.config.seller.country,
        sellerName: deps.config.seller.name,
        productName: (id) => catalogue.findTier(id)?.tier.name ?? catalogue.findTopUp(id)?.topUp.name ?? id,
        afterPayment: local.deliverSoon,
      },
      errorHandler(deps.logger),
    );
    app.all("/_checkout/*", (c) => checkout.fetch(c.req.raw, c.env));
  }

  if (deps.config.devPages) {
    app.route("/_dev", devMailRoutes(outboxDir(deps.config.dataDir), deps.mailer.transport));
    if (local) app.route("/_dev", devBillingRoutes(deps.db, local));
  }

  // Last: the portal answers every path nothing above claimed.
  if (deps.site) app.route("/", siteRoutes(deps.site, deps.config.portalUrl));
  return app;
}
