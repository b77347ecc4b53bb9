// Starts the one process: reads config, opens and migrates the database, builds the app's
// dependencies, serves pages and API on one port, and shuts down cleanly.

import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { createLowBalanceAlerts } from "./alerts/low-balance.ts";
import { createMemberCapAlerts } from "./alerts/member-cap.ts";
import { createIntrospectionCache } from "./api-access/introspection-cache.ts";
import { createApp } from "./app.ts";
import { createAccessTokens } from "./auth/access-tokens.ts";
import { resolveMfaKey, resolveSigningKey } from "./auth/dev-keys.ts";
import { createMfaSecrets } from "./auth/mfa-secrets.ts";
import { createPasswordHasher } from "./auth/passwords.ts";
import { loadSigningKeys } from "./auth/signing-keys.ts";
import { createTokenRevocations, REVOCATION_CHANNEL } from "./auth/token-revocations.ts";
import { createBackgroundTasks } from "./background.ts";
import { createAutoTopUp } from "./billing/auto-top-up/auto-top-up.ts";
import { createBillingMailSender, queueExpiringTopUpMails } from "./billing/billing-mails.ts";
import { startLeaseSweep } from "./billing/lease-sweep.ts";
import { DEFAULT_LEASE_SETTINGS, enableCreditLeases } from "./billing/leased-spends.ts";
import { systemClock } from "./clock.ts";
import { openDatabase } from "./db/client.ts";
import { postgresChannel } from "./db/postgres-channel.ts";
import { ConfigError, devPagesNote, loadConfig, localCheckoutNote, startupWarnings } from "./env.ts";
import { serveApp } from "./http/fixed-headers.ts";
import { createRateLimiter } from "./http/rate-limit.ts";
import { chunkedStdout, createLogger } from "./logger.ts";
import { createMailer } from "./mail/mailer.ts";
import { noteRunningServer } from "./operator/running-servers.ts";
import { listenOperatorSocket, operatorSocketPath } from "./operator/socket.ts";
import { offsetClock } from "./payments/local/billing-clock.ts";
import { connectRedis } from "./redis.ts";
import { selectPayments } from "./select-payments.ts";
import { loadSite } from "./site/site.ts";

function describeDatabase(url: string | undefined, dataDir: string): string {
  if (!url) return `PGlite in ${dataDir}/db`;
  const { hostname, port, pathname } = new URL(url);
  return `PostgreSQL at ${hostname}:${port || 5432}${pathname}`;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL }, chunkedStdout());
  for (const warning of startupWarnings(config)) logger.warn(warning);
  logger.info(devPagesNote(config));
  const site = config.distDir ? await loadSite(config.distDir) : undefined;
  // The whole app reads the billing clock: real time plus the offset `npm run billing:advance`
  // moves (development with the local provider only; otherwise it stays 0), so tokens, grants and
  // webhook signatures agree on "now". Authenticator apps' codes are the exception: they are made
  // by real time, so two-factor codes are checked against it (realClock).
  const clock = offsetClock(systemClock);

  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir });
  await database.migrate();

  // `npm run user:role` and `npm run service-key` reach this process here while it runs.
  const operatorSocket = await listenOperatorSocket(
    operatorSocketPath(config.dataDir),
    database.db,
    clock,
    logger,
  ).catch((error: unknown) => {
    logger.warn({ err: error }, "No operator socket: operator commands need the server stopped (PGlite)");
    return undefined;
  });

  const redis: Redis | undefined = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  const mailer = createMailer(config, clock, logger);
  const tasks = createBackgroundTasks(logger);
  const signingKeyPem = resolveSigningKey(config.JWT_SIGNING_KEY, config.dataDir);
  const signingKeys = await loadSigningKeys(
    signingKeyPem,
    config.JWT_PREVIOUS_SIGNING_KEY ? [config.JWT_PREVIOUS_SIGNING_KEY] : [],
  );
  // Tokens signed out one at a time, known to every instance (PostgreSQL LISTEN/NOTIFY between them).
  const revocations = createTokenRevocations(
    database.db,
    clock,
    config.DATABASE_URL ? postgresChannel(database.listen, REVOCATION_CHANNEL) : undefined,
  );
  await revocations.start();
  // API key introspections kept up to 1 s, dropped on every instance by any change (decision 034).
  const introspectionCache = createIntrospectionCache(database.listen);
  await introspectionCache.ready;
  const payments = await selectPayments(config, { db: database.db, clock, logger, tasks, signingKeyPem });
  if (payments.local) logger.info(localCheckoutNote(config));
  const app = createApp({
    config,
    site,
    db: database.db,
    clock,
    realClock: systemClock,
    logger,
    mailer,
    tasks,
    limiter: createRateLimiter({ limits: config.rateLimits, redis }),
    passwords: createPasswordHasher(),
    payments,
    accessTokens: createAccessTokens(
      {
        keys: signingKeys,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        ttlSeconds: config.JWT_TTL_SECONDS,
        isRevoked: revocations.isRevoked,
      },
      clock,
    ),
    revocations,
    introspectionCache,
    mfaSecrets: createMfaSecrets(resolveMfaKey(config.MFA_ENCRYPTION_KEY, config.dataDir)),
  });

  // Operator commands run without DATA_DIR find this server's data folder through this note.
  let forgetServer = () => {};
  const server = serveApp({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    if (operatorSocket) {
      try {
        forgetServer = noteRunningServer({
          cwd: process.cwd(),
          dataDir: config.dataDir,
          port: info.port,
          portalUrl: config.portalUrl,
        });
      } catch (error) {
        logger.warn(
          { err: error },
          "Operator commands will need DATA_DIR: the server could not note its data folder",
        );
      }
    }
    logger.info(
      {
        database: describeDatabase(config.DATABASE_URL, config.dataDir),
        // Operator commands run in another shell need it as DATA_DIR when it is not ./data.
        dataDir: config.dataDir,
        mail: mailer.transport === "smtp" ? "SMTP" : `outbox in ${config.dataDir}/outbox (see /_dev/mail)`,
        rateLimits: redis ? "Redis" : "memory",
        portal: site ? config.distDir : "not served (API only)",
        payments: payments.description,
      },
      // Name the address mail links and the checkout's return use (PORTAL_URL): the session lives
      // per origin, so that is the one to open (pages asked for on 127.0.0.1 are sent there too).
      site
        ? `Portal and API listening on http://${config.HOST}:${info.port}: open ${config.portalUrl}`
        : `API listening on http://${config.HOST}:${info.port}`,
    );
  });

  // The local provider's billing job: renewals and period ends due by the billing clock, and
  // webhook deliveries (first attempts and retries). One run at a time. (Stripe bills by itself.)
  const local = payments.local;
  let jobRunning = false;
  const billingJob = setInterval(() => {
    if (jobRunning || !local) return;
    jobRunning = true;
    local
      .runJob()
      .catch((error: unknown) => logger.error({ err: error }, "Billing job failed"))
      .finally(() => {
        jobRunning = false;
      });
  }, config.BILLING_JOB_INTERVAL_SECONDS * 1000);
  billingJob.unref();

  // Billing mails for both providers: top-up packs about to expire, and mails a send failed for.
  const billingMails = createBillingMailSender({ db: database.db, clock, mailer, tasks, logger });
  let mailsRunning = false;
  const billingMailsJob = setInterval(() => {
    if (mailsRunning) return;
    mailsRunning = true;
    queueExpiringTopUpMails(database.db, clock.now(), config.portalUrl)
      .then(() => billingMails.sendPending())
      .catch((error: unknown) => logger.error({ err: error }, "Billing mails job failed"))
      .finally(() => {
        mailsRunning = false;
      });
  }, config.BILLING_JOB_INTERVAL_SECONDS * 1000);
  billingMailsJob.unref();

  // Auto top-up's sweep, for both providers: attempts a crash or a timeout left half-done are settled
  // from the provider (never charged again), unconfirmed payments lapse after 7 days, and monthly
  // pauses end with their month. Run at start too: a restart reconciles what the crash left.
  const autoTopUp = createAutoTopUp({
    db: database.db,
    clock,
    logger,
    catalogue: payments.catalogue,
    provider: payments.provider,
    seller: config.seller,
    portalUrl: config.portalUrl,
    background: tasks,
    mails: billingMails,
  });
  let sweepRunning = false;
  const sweepAutoTopUps = () => {
    if (sweepRunning) return;
    sweepRunning = true;
    autoTopUp
      .runDue()
      .catch((error: unknown) => logger.error({ err: error }, "Auto top-up sweep failed"))
      .finally(() => {
        sweepRunning = false;
      });
  };
  sweepAutoTopUps();
  const autoTopUpJob = setInterval(sweepAutoTopUps, config.BILLING_JOB_INTERVAL_SECONDS * 1000);
  autoTopUpJob.unref();

  // Where a lease's ending sends what its alert latch check decides: a fall its charges made is
  // mailed even with no charge after it.
  const latchAlerts = {
    clock,
    lowBalance: createLowBalanceAlerts({
      db: database.db,
      mailer,
      tasks,
      logger,
      portalUrl: config.portalUrl,
    }),
    memberCaps: createMemberCapAlerts({
      db: database.db,
      clock,
      tasks,
      sender: billingMails,
      logger,
      portalUrl: config.portalUrl,
    }),
  };
  // Credit leases past their end, on every instance (decision 051): what they did not spend goes
  // back within seconds, a crashed instance's too.
  const leaseSweep = startLeaseSweep({ db: database.db, logger, alerts: latchAlerts });
  // Charges through credit leases, unless the operator turned them off (decision 051).
  const leases = config.CREDIT_LEASES
    ? enableCreditLeases(
        database.db,
        { ...DEFAULT_LEASE_SETTINGS, holder: `${hostname()}:${process.pid}` },
        logger,
        latchAlerts,
      )
    : undefined;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "Shutting down");
    setTimeout(() => process.exit(1), 10_000).unref();
    clearInterval(billingJob);
    clearInterval(billingMailsJob);
    clearInterval(autoTopUpJob);
    operatorSocket?.close();
    forgetServer();
    server.close(async () => {
      // What this instance's leases did not spend is everyone's again before it goes.
      await leases?.close();
      await leaseSweep.stop();
      // Let queued mails go out (those the leases' endings decided too) before the database they
      // read from closes.
      await tasks.idle();
      mailer.close();
      await redis?.quit().catch(() => {});
      await revocations.close();
      await database.close();
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  process.exit(1);
});
