// Two server processes on one PostgreSQL database and one Redis, as behind a load balancer: rate
// limits are shared, a purchase whose events reach both is granted once, a checkout paid through
// both is charged once, the billing job both run renews a subscription once per period, operator
// commands reaching both at once leave one audit chain, and an account disabled or a key revoked
// through one is refused by the other at once (an introspection kept by the other: within 1 s).
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { verifyAuditChain } from "../../server/audit/audit-log.ts";
import { firstPaymentKey, freeCreditsKey, renewalKey } from "../../server/billing/ports/fulfilment-keys.ts";
import { openPostgres } from "../../server/db/client.ts";
import { turnOnTwoFactorOverHttp } from "../../server/testing/two-factor-over-http.ts";
import { runCli } from "../fixtures/cli.ts";
import { apiLedger, grantKeysOf, grantsOf, recordedEventIds } from "../fixtures/ledger-queries.ts";
import { subscriptionPurchase, topUpPurchase } from "../fixtures/purchase-events.ts";
import {
  advanceClock,
  clockOffsetMs,
  createScratchDatabase,
  freshIp,
  giveCheckoutDetails,
  login,
  openLockHolder,
  PASSWORD,
  postJson,
  rateLimitKey,
  registerAccount,
  removeRateLimitKeys,
  type ScratchDatabase,
  type ServerProcess,
  SYSTEM_REDIS_URL,
  sendEvent,
  sessionsBlockedBy,
  skipReason,
  sleep,
  startPair,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
  waitFor,
} from "../fixtures/server-process.ts";

const FREE_CREDITS = 50;
const MILLI = 1000;
const DAY_MS = 86_400_000;
const SYSTEM_TIMEOUT = 240_000;

const reason = skipReason({ redis: true });

describe.skipIf(reason !== "")(`two instances on one PostgreSQL and one Redis${reason}`, () => {
  let db: ScratchDatabase;
  let redis: Redis;
  const dataDirs: ReturnType<typeof tempDataDir>[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  /** Every username this suite used, so that afterAll removes exactly its own rate-limit keys. */
  const usernames: string[] = [];
  let failed = false;

  beforeAll(async () => {
    dataDirs.push(tempDataDir("a"), tempDataDir("b"));
    db = await createScratchDatabase("pair");
    redis = new Redis(SYSTEM_REDIS_URL as string, { maxRetriesPerRequest: 1 });
    // Both start at once on the empty database: migrations take turns (an advisory lock).
    [a, b] = await startPair(db, dataDirs);
    // An instance whose Redis is not connected yet counts in memory (insurance limiter): wait
    // until a login attempt through each one shows up in Redis.
    for (const server of [a, b]) {
      await waitFor(`${server.label}'s rate limits to reach Redis`, async () => {
        const probe = uniqueName("probe");
        usernames.push(probe);
        const ip = freshIp();
        await login(server, probe, "Wrong-password1!", ip);
        return (await redis.exists(rateLimitKey("loginFailureIp", ip))) === 1;
      });
    }
  }, SYSTEM_TIMEOUT);

  afterEach((context) => {
    if (context.task.result?.state === "fail") failed = true;
  });

  afterAll(async () => {
    await stopServers(failed);
    if (redis) {
      await removeRateLimitKeys(redis, usernames);
      await redis.quit();
    }
    await db?.drop();
    for (const dir of dataDirs) dir.remove();
  }, SYSTEM_TIMEOUT);

  /** The billing clock the servers sign and verify with (real time plus the stored offset). */
  const billingNow = async () => Date.now() + (await clockOffsetMs(db));

  it("keeps one audit chain when operator commands reach both instances at once", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const names = Array.from({ length: 6 }, () => uniqueName("audit"));
    usernames.push(...names);
    const accounts = await Promise.all(names.map((name) => registerAccount(a, name)));
    // A staff role needs a second factor: each account has a confirmed authenticator first.
    for (const account of accounts) {
      await db.sql`insert into totp_factors (user_id, sealed_secret, confirmed_at, created_at)
        values (${account.id}, 'sealed', now(), now())`;
    }
    // Each command reaches one instance through that instance's socket, alternating, all at once.
    const runs = await Promise.all(
      names.map((name, i) =>
        runCli("scripts/user-role.ts", [name, "admin"], {
          DATA_DIR: dataDirs[i % 2]?.dir,
          DATABASE_URL: db.url,
          LOG_LEVEL: "silent",
        }),
      ),
    );
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    const handle = openPostgres(db.url, 1);
    try {
      expect(await verifyAuditChain(handle.db)).toMatchObject({ ok: true });
      const subjects = await db.sql<{ subject_user_id: string }[]>`
        select subject_user_id from audit_log where action = 'role.change' order by seq`;
      expect(subjects.map((r) => r.subject_user_id).sort()).toEqual(accounts.map((x) => x.id).sort());
    } finally {
      await handle.close();
    }
  });

  it("refuses a disabled account and a revoked key on both instances (a kept key within 1 s), and takes them back on enable", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const [customerName, adminName] = [uniqueName("cust"), uniqueName("boss")];
    usernames.push(customerName, adminName);
    const customer = await verifiedAccount(a, customerName);
    await verifiedAccount(b, adminName);
    // Two-factor first, as a new operator is set up (README): the role needs it.
    const adminToken = await turnOnTwoFactorOverHttp(
      b.baseUrl,
      ((await (await login(b, adminName)).json()) as { access_token: string }).access_token,
    );
    const role = await runCli("scripts/user-role.ts", [adminName, "admin"], {
      DATA_DIR: dataDirs[0]?.dir,
      DATABASE_URL: db.url,
      LOG_LEVEL: "silent",
    });
    expect(role.status, role.stderr).toBe(0);
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    const makeKey = async () => {
      const res = await postJson(a, "/v1/api-keys", { name: "farm" }, bearer(customer.accessToken));
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };
    const [kept, revoked] = [await makeKey(), await makeKey()];
    const service = await runCli("scripts/service-key.ts", ["create", "gen", "--scopes", "introspect"], {
      DATA_DIR: dataDirs[1]?.dir,
      DATABASE_URL: db.url,
      LOG_LEVEL: "silent",
    });
    const serviceKey = /gsk_[0-9A-Za-z]+/.exec(service.stdout)?.[0] ?? "";
    const introspect = async (server: ServerProcess, token: string) => {
      const res = await fetch(`${server.baseUrl}/v1/introspect`, {
        method: "POST",
        headers: { ...bearer(serviceKey), "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      });
      return ((await res.json()) as { active: boolean }).active;
    };
    // An active answer is kept up to 1 s per instance (decision 034), dropped once the change is
    // heard (milliseconds): asked every 10 ms for up to 1 s.
    const soon = (server: ServerProcess, token: string, active: boolean) =>
      waitFor(
        `${server.label} to answer the key ${active ? "active" : "inactive"}`,
        async () => (await introspect(server, token)) === active,
        1000,
        10,
      );
    const me = async (server: ServerProcess) =>
      (await fetch(`${server.baseUrl}/v1/users/me`, { headers: bearer(customer.accessToken) })).status;

    // Revoked through A: B refuses the key the next moment.
    const revoke = await fetch(`${a.baseUrl}/v1/admin/api-keys/${revoked.id}`, {
      method: "DELETE",
      headers: { ...bearer(adminToken), "Content-Type": "application/json" },
      body: JSON.stringify({ reason: "Leaked in a public repository" }),
    });
    expect(revoke.status).toBe(200);
    expect([await introspect(a, revoked.key), await introspect(b, revoked.key)]).toEqual([false, false]);
    expect([await introspect(a, kept.key), await introspect(b, kept.key)]).toEqual([true, true]);

    // Disabled through B: A refuses its token and its login at once, its key within 1 s.
    const disable = await postJson(
      b,
      `/v1/admin/customers/${customer.id}/disable`,
      { reason: "Card testing" },
      bearer(adminToken),
    );
    expect(disable.status).toBe(200);
    expect([await me(a), await me(b)]).toEqual([403, 403]);
    await Promise.all([soon(a, kept.key, false), soon(b, kept.key, false)]);
    expect((await login(a, customerName)).status).toBe(403);

    const enable = await postJson(
      a,
      `/v1/admin/customers/${customer.id}/enable`,
      { reason: "Owner confirmed" },
      bearer(adminToken),
    );
    expect(enable.status).toBe(200);
    expect([await me(a), await me(b)]).toEqual([200, 200]);
    expect([await introspect(a, kept.key), await introspect(b, kept.key)]).toEqual([true, true]);
    expect(await introspect(b, revoked.key)).toBe(false);
  });

  it("shares the sign-in limits: one address guessing through both is refused after five, its owner is not", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const username = uniqueName("limit");
    usernames.push(username);
    await registerAccount(a, username);
    const attacker = freshIp();
    const answers: [string, number][] = [];
    for (let i = 0; i < 7; i++) {
      const server = i % 2 === 0 ? a : b;
      answers.push([server.label, (await login(server, username, "Wrong-password1!", attacker)).status]);
    }
    expect(answers.slice(0, 5).map(([, status]) => status)).toEqual(Array(5).fill(400));
    expect(answers.slice(5)).toEqual([
      ["instance B", 429],
      ["instance A", 429],
    ]);
    // The right password from the attacker's address is refused on either instance (no oracle)...
    for (const server of [a, b]) {
      const res = await login(server, username, PASSWORD, attacker);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // ...while its owner, from another address, is told only that the e-mail is not verified yet
    // (the password was right: the limits do not stand in the way).
    for (const server of [a, b]) expect((await login(server, username, PASSWORD)).status).toBe(403);
  });

  it("signs a token out on both instances within a second, and everywhere through the other", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const name = uniqueName("away");
    usernames.push(name);
    const account = await verifiedAccount(a, name);
    const second = ((await (await login(b, name)).json()) as { access_token: string }).access_token;
    const me = async (server: ServerProcess, token: string) =>
      (await fetch(`${server.baseUrl}/v1/users/me`, { headers: { Authorization: `Bearer ${token}` } }))
        .status;
    // Each instance has checked (and remembers) the token before it is signed out.
    expect([await me(a, account.accessToken), await me(b, account.accessToken)]).toEqual([200, 200]);
    const out = await postJson(a, "/v1/logout", {}, { Authorization: `Bearer ${account.accessToken}` });
    expect(out.status).toBe(200);
    const signedOutAt = Date.now();
    await waitFor(
      "instance B to refuse the signed-out token",
      async () => (await me(b, account.accessToken)) === 401,
    );
    expect(Date.now() - signedOutAt).toBeLessThan(1000);
    expect(await me(a, account.accessToken)).toBe(401);
    expect([await me(a, second), await me(b, second)]).toEqual([200, 200]);

    const everywhere = await postJson(b, "/v1/logout/all", {}, { Authorization: `Bearer ${second}` });
    expect(everywhere.status).toBe(200);
    expect([await me(a, second), await me(b, second)]).toEqual([401, 401]);
  });

  it("grants the free credits once when one verification link is followed through both at once", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const username = uniqueName("verify");
    usernames.push(username);
    const account = await registerAccount(a, username);
    const statuses = await Promise.all(
      [a, b, a, b, a, b].map((server) =>
        postJson(server, "/v1/user/verify-email", { token: account.verificationToken }).then((r) => r.status),
      ),
    );
    expect(statuses.sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(await grantKeysOf(db, account.id)).toEqual([freeCreditsKey(account.id)]);
  });

  it("grants a purchase once when its events reach both instances at the same time, several times over", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const buyer = uniqueName("buyer");
    usernames.push(buyer);
    const account = await verifiedAccount(a, buyer);
    const now = new Date(await billingNow());
    const subscription = subscriptionPurchase(account.id, "B", now);
    const topUp = topUpPurchase(account.id, "1000", now);
    const events = [...subscription.events, ...topUp.events];
    for (let round = 0; round < 3; round++) {
      const signedAt = await billingNow();
      const statuses = await Promise.all(
        events.flatMap((e) =>
          [a, b, a, b].map((server) => sendEvent(server, e, signedAt).then((r) => r.status)),
        ),
      );
      expect(statuses).toEqual(statuses.map(() => 200));
    }
    const grants = await grantsOf(db, account.id);
    expect(grants.map((g) => [g.fulfilmentKey, g.kind, g.amount]).sort()).toEqual(
      [
        [freeCreditsKey(account.id), "free", FREE_CREDITS * MILLI],
        [subscription.grant.fulfilmentKey, "subscription", 5000 * MILLI],
        [topUp.grant.fulfilmentKey, "topup", 1000 * MILLI],
      ].sort(),
    );
    const recorded = await recordedEventIds(db);
    expect(events.filter((e) => !recorded.has(e.id))).toEqual([]);
    // Both instances tell the user the same, and the ledger adds up.
    for (const server of [a, b]) {
      const { me, entries, liveSum } = await apiLedger(server, account.accessToken, await billingNow());
      expect(me.credit_balance).toBe(FREE_CREDITS + 5000 + 1000);
      expect(me.subscription).toMatchObject({ plan: "Tier B", status: "active" });
      expect(entries).toHaveLength(3);
      expect(liveSum).toBe(me.credit_balance);
    }
  });

  // Moves the shared billing clock a month on: keep it the last test of the suite.
  it("charges a checkout paid through both once, and renews it once when both billing jobs find it due", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const username = uniqueName("renew");
    usernames.push(username);
    const account = await verifiedAccount(a, username);
    const tier = PRODUCT_IDS.test.tiers.D;
    const created = await postJson(
      a,
      "/v1/create-checkout-session",
      { product: tier.product, price: tier.price },
      { Authorization: `Bearer ${account.accessToken}` },
    );
    expect(created.status).toBe(200);
    const checkoutPath = new URL(((await created.json()) as { url: string }).url).pathname;
    await giveCheckoutDetails(a, checkoutPath);
    const payments = await Promise.all(
      [a, b, a, b].map((server) =>
        fetch(`${server.baseUrl}${checkoutPath}`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ card_number: "4242 4242 4242 4242" }).toString(),
          redirect: "manual",
        }).then((r) => r.status),
      ),
    );
    expect(payments.sort()).toEqual([303, 409, 409, 409]);
    const subs = await db.sql<
      { id: string }[]
    >`select id from local_subscriptions where user_id = ${account.id}`;
    expect(subs).toHaveLength(1);
    const subscriptionId = subs[0]?.id as string;
    await waitFor("the first payment to be granted", async () =>
      (await grantKeysOf(db, account.id)).includes(firstPaymentKey(subscriptionId)),
    );

    // Hold the subscription's row, move the clock past its period end, and let go only when
    // both instances' billing jobs listed it as due and wait for it: the race, every time.
    const holder = await openLockHolder(db);
    try {
      await holder.sql`select 1 from local_subscriptions where id = ${subscriptionId} for update`;
      await advanceClock(db, 31 * DAY_MS);
      const blocked = await waitFor("both billing jobs to wait for the subscription", async () => {
        const rows = await sessionsBlockedBy(db, holder.pid);
        return rows.length >= 2 ? rows : undefined;
      });
      for (const row of blocked) expect(row.query).toMatch(/from "local_subscriptions".*for update/is);
    } finally {
      await holder.release();
    }
    const renewalGranted = async () => (await grantKeysOf(db, account.id)).length >= 3;
    await waitFor("the renewal to be granted", renewalGranted, 30_000);
    await sleep(3_000); // three more runs of each instance's job: nothing more may be billed

    const [sub] = await db.sql<{ period_index: number; current_period_start: Date }[]>`
        select period_index, current_period_start from local_subscriptions where id = ${subscriptionId}`;
    expect(sub?.period_index).toBe(1);
    const invoices = await db.sql<{ payload: string }[]>`
        select payload from webhook_deliveries where type in ('invoice.paid', 'invoice.payment_failed')
        and payload like ${`%${subscriptionId}%`}`;
    expect(
      invoices
        .map((i) => (JSON.parse(i.payload) as { data: { object: { billing_reason: string } } }).data.object)
        .map((o) => o.billing_reason)
        .sort(),
    ).toEqual(["subscription_create", "subscription_cycle"]);
    const renewal = renewalKey(subscriptionId, sub?.current_period_start as Date);
    const grants = await grantsOf(db, account.id);
    expect(grants.map((g) => [g.fulfilmentKey, g.amount]).sort()).toEqual(
      [
        [freeCreditsKey(account.id), FREE_CREDITS * MILLI],
        [firstPaymentKey(subscriptionId), 25_000 * MILLI],
        [renewal, 25_000 * MILLI],
      ].sort(),
    );
    // Every event the provider queued reached the webhook.
    const undelivered = await db.sql`select 1 from webhook_deliveries where delivered_at is null`;
    expect(undelivered).toHaveLength(0);
  });

  // Last in the file on purpose (Vitest runs a file's tests in order): every staff action, sign-in
  // and purchase of this suite, from both instances, leaves a chain that `npm run audit:verify`
  // accepts, run as the operator runs it.
  it("leaves an audit chain that npm run audit:verify accepts after all of the above", {
    timeout: SYSTEM_TIMEOUT,
  }, async () => {
    const verified = await runCli("scripts/audit-verify.ts", [], {
      DATA_DIR: dataDirs[0]?.dir,
      DATABASE_URL: db.url,
      LOG_LEVEL: "silent",
    });
    expect(verified.status, `${verified.stdout}${verified.stderr}`).toBe(0);
    expect(verified.stdout).toMatch(/holds/);
  });
});
