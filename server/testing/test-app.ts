// Builds the real app over a test database with test-friendly dependencies: a manual clock, the
// outbox in a temporary folder, a fresh in-memory rate limiter, and logs captured in memory (so a
// test can also prove that no secret reaches them).

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import type { AccountHooks } from "../accounts/hooks.ts";
import { createIntrospectionCache } from "../api-access/introspection-cache.ts";
import { type AppDeps, createApp } from "../app.ts";
import { createAccessTokens } from "../auth/access-tokens.ts";
import { createMfaSecrets } from "../auth/mfa-secrets.ts";
import { createPasswordHasher, type PasswordHasher } from "../auth/passwords.ts";
import { loadSigningKeys } from "../auth/signing-keys.ts";
import { createTokenRevocations } from "../auth/token-revocations.ts";
import { type BackgroundTasks, createBackgroundTasks } from "../background.ts";
import { type Catalogue, createCatalogue } from "../billing/catalogue.ts";
import { customerStore } from "../billing/subscription-store.ts";
import { type Clock, ManualClock } from "../clock.ts";
import type { Listen } from "../db/listen.ts";
import type { Db } from "../db/types.ts";
import type { Seller } from "../domain/vat.ts";
import type { RateLimitConfig } from "../env.ts";
import { createRateLimiter, type RateLimiter } from "../http/rate-limit.ts";
import { createLogger } from "../logger.ts";
import { createOutboxMailer, type Mailer, outboxDir } from "../mail/mailer.ts";
import { listOutbox, type OutboxEntry } from "../mail/outbox.ts";
import type { SendWebhook } from "../payments/local/deliveries.ts";
import { createLocalPayments, type LocalPayments } from "../payments/local/local-payments.ts";
import { withoutLocalCheckout } from "../select-payments.ts";
import { notificationBarrier } from "./heard-all.ts";
import { newSigningKeyPem } from "./signing-keys.ts";

export const TEST_PORTAL_URL = "https://portal.test";
export const TEST_SIGNING_KEY_PEM = newSigningKeyPem();
/** The two-factor secrets' key of every test app (32 bytes, Base64). */
export const TEST_MFA_KEY = Buffer.alloc(32, 7).toString("base64");

export const TEST_JWT = {
  keys: await loadSigningKeys(TEST_SIGNING_KEY_PEM),
  issuer: "genai-portal",
  audience: "genai-portal-api",
  ttlSeconds: 86_400,
};
export const CONTRACT_LIMITS: RateLimitConfig = {
  tokenPerMinute: 10,
  loginPairFailuresPerMinute: 5,
  registerPerMinute: 5,
  emailPerMinute: 3,
  emailIpPerMinute: 10,
  accountWritePerMinute: 20,
  serviceAuthFailuresPerMinute: 10,
  mfaFailuresPerHour: 10,
  emailRecipientPerHour: 10,
  emailRecipientPerDay: 20,
};

/** Every limit so high that a test of something else never meets one. */
export const NO_LIMITS: RateLimitConfig = Object.fromEntries(
  Object.keys(CONTRACT_LIMITS).map((name) => [name, 1_000_000]),
) as unknown as RateLimitConfig;

export interface TestAppOptions {
  limits?: Partial<RateLimitConfig>;
  limiter?: RateLimiter;
  hooks?: AccountHooks;
  trustProxy?: boolean;
  nodeEnv?: "development" | "test" | "production";
  /** false: the local checkout is off, as on a public HOST (select-payments.ts). */
  localCheckout?: boolean;
  /** Serve /_dev; default: unless nodeEnv is production. */
  devPages?: boolean;
  mailer?: Mailer;
  passwords?: PasswordHasher;
  corsOrigins?: string[];
  freeInitialCredits?: number;
  /**
   * LISTEN on the test database: the app then keeps introspections as production does (decision
   * 034), for 1 s of the test's clock. Without it, every introspection reads.
   */
  listen?: Listen;
  /** Real time beside the app's clock (main.ts's `realClock`): two-factor codes are read by it. */
  realClock?: Clock;
}

export const TEST_WEBHOOK_SECRET = "whsec_test_".padEnd(40, "x");
export const TEST_FREE_CREDITS = 50;
export const TEST_SELLER: Seller = {
  name: "Test Operator GmbH",
  address: "Teststraße 1\n10115 Berlin\nGermany",
  country: "DE",
  vatId: "DE136695976",
};

export interface TestApp {
  app: Hono;
  /** The embedded payment provider, its deliveries and billing job. */
  local: LocalPayments;
  catalogue: Catalogue;
  deps: AppDeps;
  clock: ManualClock;
  tasks: BackgroundTasks;
  dataDir: string;
  /** Every log line written so far (JSON strings). */
  logs: string[];
  /** Waits for background mail, then lists the outbox, newest first. */
  mails(): Promise<OutboxEntry[]>;
  /** Settles once the app listens (with `listen`): from then on it keeps introspections. */
  listening: Promise<void>;
  /** Waits until the app has heard every notification committed so far (heard-all.ts). */
  heardAll(): Promise<void>;
  /** Stops listening (with `listen`; the test database closes the connection). */
  close(): Promise<void>;
}

export function createTestApp(db: Db, options: TestAppOptions = {}): TestApp {
  const dataDir = mkdtempSync(join(tmpdir(), "portal-api-test-"));
  const clock = new ManualClock(new Date());
  const logs: string[] = [];
  const logger = createLogger({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const tasks = createBackgroundTasks(logger);
  const mailer =
    options.mailer ??
    createOutboxMailer({
      dir: outboxDir(dataDir),
      from: "AI Studio <no-reply@portal.test>",
      clock,
      logger,
      logLinks: false,
    });
  const catalogue = createCatalogue(PRODUCT_IDS.test);
  // One process: no channel between instances. Nothing is revoked yet in a test's fresh database.
  const revocations = createTokenRevocations(db, clock);
  const introspectionCache = options.listen
    ? createIntrospectionCache(options.listen, { monotonicNow: () => clock.now().getTime() })
    : undefined;
  const barrier = options.listen ? notificationBarrier(db, options.listen) : undefined;
  let app: Hono | undefined;
  // Webhook deliveries reach the app in-process, exactly as they would over HTTP.
  const send: SendWebhook = async (body, headers) => {
    if (!app) throw new Error("app not built yet");
    const res = await app.request("/v1/webhooks/stripe", { method: "POST", body, headers });
    await res.arrayBuffer();
    return res.status;
  };
  const local = createLocalPayments({
    db,
    clock,
    logger,
    tasks,
    catalogue,
    checkoutBaseUrl: TEST_PORTAL_URL,
    sellerCountry: TEST_SELLER.country,
    webhookSecret: TEST_WEBHOOK_SECRET,
    customers: customerStore,
    send,
  });
  const deps: AppDeps = {
    config: {
      FREE_INITIAL_CREDITS: options.freeInitialCredits ?? TEST_FREE_CREDITS,
      SUPPORT_GRANT_LIMIT: 500,
      SUPPORT_GRANT_DAILY_LIMIT: 2_000,
      TRUST_PROXY: options.trustProxy ?? true,
      NODE_ENV: options.nodeEnv ?? "test",
      // In-process: no address is listened on; the pages exist unless the test says production.
      devPages: options.devPages ?? options.nodeEnv !== "production",
      portalUrl: TEST_PORTAL_URL,
      corsOrigins: options.corsOrigins ?? [TEST_PORTAL_URL],
      dataDir,
      seller: TEST_SELLER,
    },
    db,
    clock,
    realClock: options.realClock,
    logger,
    tasks,
    mailer,
    limiter: options.limiter ?? createRateLimiter({ limits: { ...CONTRACT_LIMITS, ...options.limits } }),
    passwords: options.passwords ?? createPasswordHasher(),
    accessTokens: createAccessTokens({ ...TEST_JWT, isRevoked: revocations.isRevoked }, clock),
    revocations,
    mfaSecrets: createMfaSecrets(TEST_MFA_KEY),
    introspectionCache,
    hooks: options.hooks,
    payments:
      options.localCheckout === false
        ? { catalogue, provider: withoutLocalCheckout(local.provider), local, checkoutPages: false }
        : { catalogue, provider: local.provider, local },
  };
  app = createApp(deps);
  return {
    app,
    local,
    catalogue,
    deps,
    clock,
    tasks,
    dataDir,
    logs,
    listening: Promise.all([introspectionCache?.ready, barrier?.ready]).then(() => undefined),
    heardAll: async () => barrier?.heardAll(),
    async close() {
      await Promise.all([introspectionCache?.close(), barrier?.close()]);
    },
    async mails() {
      await tasks.idle();
      return listOutbox(outboxDir(dataDir));
    },
  };
}
