// Auto top-up on real server processes (AUTO-TOP-UP.md, "The charge" and "Budgets"): two instances
// on one PostgreSQL database and one Redis. A customer pays for a plan and saves a card on the local
// checkout's pages over HTTP, turns auto top-up on with its consent, and then 100 concurrent spends
// through both instances cross the threshold: one attempt, one charge, one pack, one invoice. And an
// attempt a crash left charged but not granted is settled from the provider by the sweep of an
// instance started afterwards: granted once, charged nothing more.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRODUCT_IDS } from "../../contract/product-ids.ts";
import { autoTopUpKey } from "../../server/billing/ports/fulfilment-keys.ts";
import { generationServiceKey } from "../fixtures/cli.ts";
import { grantsOf } from "../fixtures/ledger-queries.ts";
import {
  type Account,
  createScratchDatabase,
  getJson,
  giveCheckoutDetails,
  postJson,
  removeRateLimitKeys,
  type ScratchDatabase,
  type ServerProcess,
  SYSTEM_REDIS_URL,
  skipReason,
  startPair,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
  waitFor,
} from "../fixtures/server-process.ts";

const SYSTEM_TIMEOUT = 240_000;
const MILLI = 1000;
/** Tier A: 1,000 credits a month, on top of the 50 free ones. */
const PLAN = PRODUCT_IDS.test.tiers.A;
const PLAN_CREDITS = 1000;
const FREE_CREDITS = 50;
const PACK = PRODUCT_IDS.test.topUps["500"].product;
const PACK_CREDITS = 500;
/** The 500 pack: €50.00 net, €59.50 with German VAT (the customer's checkout said Germany). */
const PACK_NET = 5000;
const PACK_GROSS = 5950;
const THRESHOLD = 100;
/** A generous monthly limit, gross cents: €1,000. */
const MONTHLY_LIMIT = 100_000;
const SPENDS = 100;
/** Image-to-video for one person: 10 credits a use (contract/credit-costs.ts). */
const FEATURE = "image-to-video";
const FEATURE_CREDITS = 10;

const reason = skipReason({ redis: true });

describe.skipIf(reason !== "")(
  `auto top-up on two instances on one PostgreSQL and one Redis${reason}`,
  () => {
    let db: ScratchDatabase;
    let redis: Redis;
    const dataDirs = [tempDataDir("atu-a"), tempDataDir("atu-b"), tempDataDir("atu-c")];
    let a: ServerProcess;
    let b: ServerProcess;
    let serviceKey: string;
    const usernames: string[] = [];
    let failed = false;

    beforeAll(async () => {
      db = await createScratchDatabase("autotopup");
      redis = new Redis(SYSTEM_REDIS_URL as string, { maxRetriesPerRequest: 1 });
      // The billing job each second on both: webhook deliveries (the invoice.paid of a charge reaches
      // both instances after the charge's own answer granted the pack) and the sweep.
      [a, b] = await startPair(db, dataDirs);
      // The generation service's key, made as the operator makes it (through A's operator socket).
      serviceKey = await generationServiceKey(dataDirs[0]?.dir as string, db.url);
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

    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

    const balanceOf = async (server: ServerProcess, account: Account) =>
      (await getJson<{ credit_balance: number }>(server, "/v1/users/me", account.accessToken)).credit_balance;

    /** The local checkout's card step for `path`, as the browser posts its form. */
    const postCard = (server: ServerProcess, path: string, card = "4242 4242 4242 4242") =>
      fetch(`${server.baseUrl}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ card_number: card }).toString(),
        redirect: "manual",
      });

    /**
     * A customer as the contract's flow makes one, all over HTTP through instance A: registered, tier
     * A paid on the local checkout, the test card 4242 saved on the card-setup page (and its events
     * delivered), and auto top-up turned on with the consent text for exactly its values.
     */
    async function payingCustomerWithAutoTopUp(): Promise<Account> {
      const username = uniqueName("atu");
      usernames.push(username);
      const account = await verifiedAccount(a, username);
      const created = await postJson(
        a,
        "/v1/create-checkout-session",
        { product: PLAN.product, price: PLAN.price },
        bearer(account.accessToken),
      );
      expect(created.status).toBe(200);
      const checkoutPath = new URL(((await created.json()) as { url: string }).url).pathname;
      await giveCheckoutDetails(a, checkoutPath);
      expect((await postCard(a, checkoutPath)).status).toBe(303);
      await waitFor(
        "the plan's credits",
        async () => (await balanceOf(a, account)) === FREE_CREDITS + PLAN_CREDITS,
      );

      const setup = await postJson(a, "/v1/billing/payment-method/setup", {}, bearer(account.accessToken));
      expect(setup.status).toBe(200);
      const setupPath = new URL(((await setup.json()) as { url: string }).url).pathname;
      expect(setupPath).toMatch(/^\/_checkout\/setup\/[^/]+$/);
      const page = await fetch(`${a.baseUrl}${setupPath}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('name="card_number"');
      const saved = await postCard(a, setupPath);
      expect(saved.status).toBe(303);
      expect(saved.headers.get("location")).toContain("/profile/billing?card=saved");
      // Saved from the provider's events, never from the redirect: wait until they were delivered.
      await waitFor("the card-saved events to be delivered and the card saved", async () => {
        const events = await db.sql<{ type: string; delivered: boolean }[]>`
        select type, delivered_at is not null as delivered from webhook_deliveries
        where type in ('checkout.session.completed', 'setup_intent.succeeded')
          and payload like ${`%${account.id}%`} and payload like '%setup%'`;
        const cards = await db.sql`select 1 from saved_cards where org_id = ${account.id} and last4 = '4242'`;
        return events.some((e) => e.type === "setup_intent.succeeded") &&
          events.every((e) => e.delivered) &&
          cards.length === 1
          ? true
          : undefined;
      });

      const values = {
        threshold: THRESHOLD,
        product_id: PACK,
        monthly_limit: { amount: MONTHLY_LIMIT, currency: "eur" },
      };
      const text = await postJson(
        a,
        "/v1/billing/auto-top-up/consent-text",
        values,
        bearer(account.accessToken),
      );
      expect(text.status).toBe(200);
      const { text_version } = (await text.json()) as { text: string; text_version: string };
      const turnedOn = await fetch(`${a.baseUrl}/v1/billing/auto-top-up`, {
        method: "PUT",
        headers: { ...bearer(account.accessToken), "Content-Type": "application/json" },
        body: JSON.stringify({ enabled: true, ...values, consent: { text_version, accepted: true } }),
      });
      expect(turnedOn.status, await turnedOn.clone().text()).toBe(200);
      expect(await turnedOn.json()).toMatchObject({ enabled: true, status: "active", threshold: THRESHOLD });
      return account;
    }

    const attemptsOf = (orgId: string) =>
      db.sql<{ id: string; status: string; credits: number; gross: number; provider_invoice_id: string }[]>`
      select id, status, credits, gross, provider_invoice_id from auto_top_up_attempts
      where org_id = ${orgId} order by created_at`;
    const localInvoicesOf = (orgId: string) =>
      db.sql<{ id: string; status: string; attempt_id: string; total: number }[]>`
      select id, status, attempt_id, total from local_invoices where org_id = ${orgId}`;
    const invoicesWithKey = (key: string) =>
      db.sql<{ status: string; total: number; number: string }[]>`
      select status, total, number from invoices where fulfilment_key = ${key}`;

    it("100 concurrent spends crossing the threshold through both instances charge once and grant one pack", {
      timeout: SYSTEM_TIMEOUT,
    }, async () => {
      const customer = await payingCustomerWithAutoTopUp();
      const key = await postJson(a, "/v1/api-keys", { name: "farm" }, bearer(customer.accessToken));
      expect(key.status).toBe(201);
      const apiKeyId = ((await key.json()) as { id: string }).id;
      const before = await balanceOf(a, customer);
      expect(before).toBe(FREE_CREDITS + PLAN_CREDITS);
      expect(await attemptsOf(customer.id)).toEqual([]);

      // 1,000 credits in 100 spends, all at once, alternating A and B: the balance goes from 1,050 to
      // 50, crossing 100 on whichever spend it does; every spend after it also sees it below.
      const answers = await Promise.all(
        Array.from({ length: SPENDS }, (_, i) =>
          postJson(
            i % 2 === 0 ? a : b,
            "/v1/credits/consume",
            { api_key_id: apiKeyId, feature: FEATURE, people: "one", idempotency_key: `burst-${i}` },
            bearer(serviceKey),
          ).then(async (res) => ({ status: res.status, body: await res.text() })),
        ),
      );
      expect(answers.filter((r) => r.status !== 200)).toEqual([]);
      const spent = SPENDS * FEATURE_CREDITS;

      const [attempt] = await waitFor("the auto top-up to be paid", async () => {
        const rows = await attemptsOf(customer.id);
        return rows.some((r) => r.status === "paid") ? rows : undefined;
      });
      const grantKey = autoTopUpKey(attempt?.id as string);
      // The charge's own answer granted it; its invoice.paid then reaches the webhook (each instance's
      // billing job delivers due events): wait for that too, so the second path is shown a no-op.
      await waitFor("the charge's invoice.paid to be delivered", async () => {
        const rows = await db.sql<{ delivered: boolean }[]>`
        select delivered_at is not null as delivered from webhook_deliveries
        where type = 'invoice.paid' and payload like ${`%${attempt?.provider_invoice_id}%`}`;
        return rows.length > 0 && rows.every((r) => r.delivered) ? true : undefined;
      });
      // A few more runs of both billing jobs and sweeps: nothing more may be charged or granted.
      await new Promise((r) => setTimeout(r, 3_000));

      const attempts = await attemptsOf(customer.id);
      expect(attempts.map((r) => [r.status, r.credits, r.gross])).toEqual([
        ["paid", PACK_CREDITS, PACK_GROSS],
      ]);
      const charged = await localInvoicesOf(customer.id);
      expect(charged.map((i) => [i.status, i.attempt_id, i.total])).toEqual([
        ["paid", attempt?.id, PACK_GROSS],
      ]);
      const packs = (await grantsOf(db, customer.id)).filter((g) =>
        g.fulfilmentKey.startsWith("auto_top_up:"),
      );
      expect(packs.map((g) => [g.fulfilmentKey, g.kind, g.amount])).toEqual([
        [grantKey, "topup", PACK_CREDITS * MILLI],
      ]);
      const invoices = await invoicesWithKey(grantKey);
      expect(invoices).toHaveLength(1);
      expect(invoices[0]).toMatchObject({ status: "paid", total: PACK_GROSS });
      expect(invoices[0]?.number).toMatch(/^INV-\d{4}-\d{6}$/);
      for (const server of [a, b])
        expect(await balanceOf(server, customer)).toBe(before - spent + PACK_CREDITS);
      const view = await getJson<{
        status: string;
        last_attempt: { status: string; credits: number } | null;
      }>(b, "/v1/billing/auto-top-up", customer.accessToken);
      expect(view).toMatchObject({
        status: "active",
        last_attempt: { status: "paid", credits: PACK_CREDITS },
      });
    });

    // Stops both instances: keep it the last test of the suite.
    it("after a crash between the charge and the grant, an instance started afterwards grants once and charges nothing more", {
      timeout: SYSTEM_TIMEOUT,
    }, async () => {
      const customer = await payingCustomerWithAutoTopUp();
      const before = await balanceOf(a, customer);
      expect(before).toBe(FREE_CREDITS + PLAN_CREDITS);
      // The crash: both instances gone at once (SIGKILL), nothing of theirs left running.
      await Promise.all([a.kill("SIGKILL"), b.kill("SIGKILL")]);

      // What a crash between the charge and the grant leaves (as auto-top-up.test.ts's crash test
      // makes it in-process): the attempt processing with its invoice id and the time it was sent,
      // the invoice paid at the provider (the local checkout's own table), no grant, no invoice of
      // ours, and the paid event lost with the process. Untouched for three minutes: past the two
      // after which the sweep takes a processing attempt as left behind.
      const attemptId = crypto.randomUUID();
      const invoiceId = `in_crash${attemptId.replaceAll("-", "").slice(0, 16)}`;
      const [card] = await db.sql<{ payment_method_id: string }[]>`
      select payment_method_id from saved_cards where org_id = ${customer.id}`;
      const [billingCustomer] = await db.sql<{ customer_id: string }[]>`
      select customer_id from billing_customers where user_id = ${customer.id}`;
      expect(card && billingCustomer).toBeTruthy();
      await db.sql.begin(async (sql) => {
        await sql`insert into auto_top_up_attempts
          (id, org_id, status, provider, product_id, credits, currency, net, gross, payment_method_id,
           provider_invoice_id, sent_at, created_at, updated_at)
        values (${attemptId}, ${customer.id}, 'processing', 'local', ${PACK}, ${PACK_CREDITS}, 'eur',
          ${PACK_NET}, ${PACK_GROSS}, ${card?.payment_method_id as string}, ${invoiceId},
          now() - interval '3 minutes', now() - interval '3 minutes', now() - interval '3 minutes')`;
        await sql`insert into local_invoices
          (id, customer_id, org_id, attempt_id, payment_method_id, product_id, description, currency,
           net, tax, total, tax_treatment, tax_rate_basis_points, buyer_name, buyer_country, status,
           payment_intent_id, created_at, paid_at)
        values (${invoiceId}, ${billingCustomer?.customer_id as string}, ${customer.id}, ${attemptId},
          ${card?.payment_method_id as string}, ${PACK}, 'Auto top-up: 500 credit pack', 'eur',
          ${PACK_NET}, ${PACK_GROSS - PACK_NET}, ${PACK_GROSS}, 'domestic', 1900, 'Erika Mustermann',
          'DE', 'paid', ${`pi_crash${attemptId.replaceAll("-", "").slice(0, 16)}`},
          now() - interval '3 minutes', now() - interval '3 minutes')`;
      });
      const [{ at: restartedAt } = { at: new Date() }] = await db.sql<{ at: Date }[]>`select now() as at`;

      // A new instance on the same database; its billing job stays out of the way (a day), so the
      // sweep that settles the attempt is the one every start runs.
      const restarted = await startServer({
        label: "instance C (after the crash)",
        databaseUrl: db.url,
        dataDir: dataDirs[2]?.dir as string,
        redisUrl: SYSTEM_REDIS_URL,
      });
      await waitFor("the sweep at start to settle the attempt", async () => {
        const rows = await attemptsOf(customer.id);
        return rows.some((r) => r.status === "paid") ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 1_000));

      expect((await attemptsOf(customer.id)).map((r) => [r.id, r.status])).toEqual([[attemptId, "paid"]]);
      // Charged nothing more: the one invoice at the provider, and no new event of any charge.
      expect((await localInvoicesOf(customer.id)).map((i) => [i.id, i.status])).toEqual([
        [invoiceId, "paid"],
      ]);
      const newDeliveries = await db.sql<{ type: string }[]>`
      select type from webhook_deliveries where created_at >= ${restartedAt}`;
      expect(newDeliveries.filter((d) => d.type.startsWith("invoice."))).toEqual([]);
      const packs = (await grantsOf(db, customer.id)).filter((g) =>
        g.fulfilmentKey.startsWith("auto_top_up:"),
      );
      expect(packs.map((g) => [g.fulfilmentKey, g.amount, g.paymentReference])).toEqual([
        [autoTopUpKey(attemptId), PACK_CREDITS * MILLI, expect.stringMatching(/^pi_crash|^in_crash/)],
      ]);
      expect(await invoicesWithKey(autoTopUpKey(attemptId))).toHaveLength(1);
      expect(await balanceOf(restarted, customer)).toBe(before + PACK_CREDITS);
      // Above the threshold after the grant: nothing new is queued.
      expect(await attemptsOf(customer.id)).toHaveLength(1);
    });
  },
);
