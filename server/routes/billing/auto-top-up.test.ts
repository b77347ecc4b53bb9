// Auto top-up's settings calls (AUTO-TOP-UP.md, "Settings") and the console's: who may call them,
// every refusal in its order, the consent stored as evidence with the text for exactly the values,
// turning off never refused, the activity log, and what GET shows of the state and the attempts.
// The routes run in a small app of their own over the test app's database, tokens and provider,
// with a recording engine in place of the real one: these tests are about the settings, not the
// charges (billing/auto-top-up/ has the engine's own).
import { randomUUID } from "node:crypto";
import { OpenAPIHono } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import type { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TEXT } from "../../../contract/admin.ts";
import { ADMIN_ORG_TEXT } from "../../../contract/admin-orgs.ts";
import { AUTO_TOP_UP_TEXT, type AutoTopUp, cardSetupConsentText } from "../../../contract/auto-top-up.ts";
import { PRODUCT_NAME } from "../../../contract/brand.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { createPasskeys } from "../../accounts/passkeys.ts";
import { createTwoFactor } from "../../accounts/two-factor.ts";
import { createMfaSecrets } from "../../auth/mfa-secrets.ts";
import type { AutoTopUpActor, AutoTopUpEngine } from "../../billing/auto-top-up/engine.ts";
import { autoTopUpCommands } from "../../billing/auto-top-up/settings.ts";
import { billingDetailsCommands } from "../../billing/billing-details.ts";
import { saveCustomerId, saveGivenBillingDetails, saveState } from "../../billing/subscription-store.ts";
import {
  auditLog,
  autoTopUpAttempts,
  autoTopUpConsents,
  autoTopUpSettings,
  cardSetupSessions,
  invoices,
  organizationMembers,
  organizations,
  providerInvoiceDocuments,
  savedCards,
  subscriptions,
  vatIdChecks,
} from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import {
  CONSENT_TEXT_VERSION,
  declineSentence,
  type OffReason,
  PAUSE_REASONS,
  SETTINGS_MESSAGES,
  WITHDRAWAL_WAIVER,
} from "../../domain/auto-top-up.ts";
import { FREE } from "../../domain/subscription.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { errorHandler } from "../../http/errors.ts";
import { staffMember } from "../../testing/admin.ts";
import { bearer } from "../../testing/api-access.ts";
import { fromIp, verifiedUser } from "../../testing/api-client.ts";
import { TIER, TOP_UP, tokenFor } from "../../testing/billing.ts";
import { type ConformanceChecker, conformanceChecker, report } from "../../testing/openapi-conformance.ts";
import { STALE } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { teamOrg } from "../../testing/team-org.ts";
import { TEST_MFA_KEY, TEST_PORTAL_URL, TEST_SELLER, type TestApp } from "../../testing/test-app.ts";
import { adminAutoTopUpRoutes } from "../admin/auto-top-up-routes.ts";
import { autoTopUpRoutes } from "./auto-top-up.ts";

type Call = { method: string; args: unknown[] };

/** An engine that records what the settings ask of it; turning off does what the real one does to the row. */
function recordingEngine() {
  const calls: Call[] = [];
  const engine: AutoTopUpEngine = {
    nudge: (orgId, cause) => void calls.push({ method: "nudge", args: [orgId, cause] }),
    async turnOff(tx: Tx, orgId: string, reason: OffReason, actor: AutoTopUpActor | null) {
      calls.push({ method: "turnOff", args: [orgId, reason, actor?.userId ?? null] });
      await tx
        .update(autoTopUpSettings)
        .set({ status: "off", reason, enabled: false })
        .where(eq(autoTopUpSettings.orgId, orgId));
    },
    async billingDetailsChanged(_tx, orgId) {
      calls.push({ method: "billingDetailsChanged", args: [orgId] });
    },
    async memberLeft() {},
    async forgetCard(_tx, orgId) {
      calls.push({ method: "forgetCard", args: [orgId] });
    },
    async cancelOpenAttempt(_tx, orgId, detail) {
      calls.push({ method: "cancelOpenAttempt", args: [orgId, detail] });
    },
    async handleEvent() {},
    runDue: async () => 0,
  };
  return {
    engine,
    calls,
    of: (method: string) => calls.filter((c) => c.method === method).map((c) => c.args),
  };
}

/** The routes under test in an app of their own, as v1.ts mounts them, with the recording engine. */
function routesApp(t: TestApp, engine: AutoTopUpEngine) {
  const { db } = t.deps;
  const clock = t.clock;
  const commands = autoTopUpCommands({
    db,
    catalogue: t.catalogue,
    provider: t.deps.payments.provider,
    engine,
    seller: TEST_SELLER,
    portalUrl: TEST_PORTAL_URL,
    afterProviderChange: () => {},
  });
  const deps = {
    db,
    clock,
    accessTokens: t.deps.accessTokens,
    limiter: t.deps.limiter,
    trustProxy: true,
    passkeys: createPasskeys({ db, clock, rpName: PRODUCT_NAME, portalUrl: TEST_PORTAL_URL }),
    twoFactor: createTwoFactor({ db, clock, secrets: createMfaSecrets(TEST_MFA_KEY), issuer: PRODUCT_NAME }),
    autoTopUpCommands: commands,
  };
  const app = new OpenAPIHono<AppEnv>().basePath("/v1");
  app.onError(errorHandler(t.deps.logger));
  app.route("/", autoTopUpRoutes(deps));
  app.route("/", adminAutoTopUpRoutes(deps));
  return app;
}

const PACK_500 = TOP_UP("500").product;
const PACK_1000 = TOP_UP("1000").product;
const UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0";

/** A valid PUT body: the 500 pack below 100 credits, at most €200 a month. */
const settings = (overrides: Record<string, unknown> = {}) => ({
  enabled: true,
  threshold: 100,
  product_id: PACK_500,
  monthly_limit: { amount: 20_000, currency: "eur" },
  consent: { text_version: CONSENT_TEXT_VERSION, accepted: true },
  ...overrides,
});

describe.each(TEST_DATABASES)("auto top-up settings (%s)", (kind) => {
  const ctx = useTestApp(kind);

  // Every exchange with the routes' own app is checked against the document the real app serves.
  let checker: ConformanceChecker | undefined;
  afterEach(() => {
    const broken = checker?.violations.splice(0) ?? [];
    if (broken.length > 0)
      throw new Error(`The API answered outside its OpenAPI document:\n${report(broken)}`);
  });

  async function setup() {
    const recorder = recordingEngine();
    const app = routesApp(ctx.t, recorder.engine);
    checker ??= await conformanceChecker(await (await ctx.t.app.request("/v1/openapi.json")).json());
    checker.watch(app as unknown as Hono);
    const call = (
      method: string,
      path: string,
      token: string | undefined,
      options: { org?: string; body?: unknown; ip?: string } = {},
    ) =>
      app.request(path, {
        method,
        headers: {
          ...(token ? bearer(token) : {}),
          ...(options.org ? { "X-Organization": options.org } : {}),
          ...(options.body === undefined ? {} : { "Content-Type": "application/json" }),
          "User-Agent": UA,
          ...fromIp(options.ip),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    return { ...recorder, app, call };
  }

  const db = () => ctx.t.deps.db;
  const now = () => ctx.t.clock.now();

  async function saveCard(
    orgId: string,
    savedBy: string | null,
    last4 = "4242",
    id = `pm_${last4}_${randomUUID()}`,
  ) {
    await db()
      .insert(savedCards)
      .values({
        orgId,
        provider: "local",
        paymentMethodId: id,
        setupIntentId: `seti_${randomUUID()}`,
        setupAt: now(),
        brand: "visa",
        last4,
        expMonth: 12,
        expYear: 2030,
        savedBy,
        savedAt: now(),
        updatedAt: now(),
      })
      .onConflictDoUpdate({ target: savedCards.orgId, set: { paymentMethodId: id, last4, savedBy } });
    return id;
  }

  /** A paid plan (Tier A) for `orgId`, as the subscription's events leave it. */
  async function subscribe(
    orgId: string,
    status: "active" | "past_due" = "active",
    cancelAtPeriodEnd = false,
  ) {
    await saveState(
      db(),
      orgId,
      FREE,
      {
        status,
        subscriptionId: `sub_${randomUUID()}`,
        productId: TIER("A").product,
        currentPeriodStart: now(),
        currentPeriodEnd: new Date(now().getTime() + 30 * 86_400_000),
        periodIsEstimate: false,
        cancelAtPeriodEnd,
        scheduledProductId: null,
      },
      now(),
      null,
    );
  }

  /** Billing details on file, as PUT /v1/billing/details saves them (a VAT ID: confirmed). */
  async function details(orgId: string, country: string, vatId: string | null = null) {
    await saveCustomerId(db(), orgId, `cus_${randomUUID()}`);
    await saveGivenBillingDetails(
      db(),
      orgId,
      {
        name: "Buyer",
        email: "books@example.com",
        address: { line1: "Street 1", line2: null, postal_code: "75001", city: "Paris", country },
        vatId,
      },
      vatId ? "verified" : null,
      now(),
    );
  }

  /** Ann owns Acme with a paid plan and a saved card; Bob is its billing member, Carl a developer, Dan a manager. */
  async function acme() {
    const [ann, bob, carl, dan, eve] = await Promise.all(
      ["ann", "bob", "carl", "dan", "eve"].map((name) => verifiedUser(ctx.t, name)),
    );
    if (!ann || !bob || !carl || !dan || !eve) throw new Error("users");
    const org = await teamOrg(ctx.t, "Acme", [
      { id: ann.id, role: "owner" },
      { id: bob.id, role: "billing" },
      { id: carl.id, role: "developer" },
      { id: dan.id, role: "manager" },
    ]);
    await subscribe(org);
    const card = await saveCard(org, bob.id);
    return { ann, bob, carl, dan, eve, org, card };
  }

  const json = async <T = Record<string, unknown>>(res: Response, status: number) => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return JSON.parse(text) as T;
  };
  const settingsRow = async (orgId: string) =>
    (await db().select().from(autoTopUpSettings).where(eq(autoTopUpSettings.orgId, orgId)))[0];
  const consents = (orgId: string) =>
    db()
      .select()
      .from(autoTopUpConsents)
      .where(eq(autoTopUpConsents.orgId, orgId))
      .orderBy(desc(autoTopUpConsents.acceptedAt));
  const auditOf = (orgId: string, prefix = "auto_top_up.") =>
    db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.subjectOrgId, orgId))
      .orderBy(auditLog.seq)
      .then((rows) => rows.filter((r) => r.action.startsWith(prefix)));

  describe("who may call", () => {
    it("without a token every call answers 401", async () => {
      const { call } = await setup();
      for (const [method, path] of [
        ["GET", "/v1/billing/auto-top-up"],
        ["PUT", "/v1/billing/auto-top-up"],
        ["POST", "/v1/billing/auto-top-up/consent-text"],
        ["POST", "/v1/billing/payment-method/setup"],
        ["DELETE", "/v1/billing/payment-method"],
      ] as const) {
        const res = await call(method, path, undefined, { body: method === "PUT" ? settings() : undefined });
        expect(await json(res, 401)).toEqual({ detail: DETAIL.couldNotValidateCredentials });
      }
    });

    it("owners and billing members may; developers and managers are refused 403; a non-member 404", async () => {
      const team = await acme();
      const { call } = await setup();
      const calls = [
        ["GET", "/v1/billing/auto-top-up", undefined],
        ["PUT", "/v1/billing/auto-top-up", settings()],
        ["POST", "/v1/billing/auto-top-up/consent-text", settings()],
        ["POST", "/v1/billing/payment-method/setup", undefined],
        ["DELETE", "/v1/billing/payment-method", undefined],
      ] as const;
      for (const [method, path, body] of calls) {
        for (const member of [team.carl, team.dan]) {
          const res = await call(method, path, member.accessToken, { org: team.org, body });
          expect(await json(res, 403), `${method} ${path}`).toEqual({ detail: ORG_DETAIL.notAllowed });
        }
        const res = await call(method, path, team.eve.accessToken, { org: team.org, body });
        expect(await json(res, 404)).toEqual({ detail: ORG_DETAIL.notFound });
      }
      expect(await settingsRow(team.org)).toBeUndefined();
      for (const member of [team.ann, team.bob]) {
        await json(await call("GET", "/v1/billing/auto-top-up", member.accessToken, { org: team.org }), 200);
      }
    });
  });

  describe("GET", () => {
    it("before anything is saved: off, no values, no card, this month's charges 0 and when the limit resets", async () => {
      ctx.t.clock.set(new Date("2026-11-28T10:00:00Z"));
      const ann = await verifiedUser(ctx.t, "ann");
      const { call } = await setup();
      const view = await json<AutoTopUp>(await call("GET", "/v1/billing/auto-top-up", ann.accessToken), 200);
      expect(view).toEqual({
        enabled: false,
        threshold: null,
        product_id: null,
        monthly_limit: null,
        charged_this_month: { amount: 0, currency: "eur" },
        reserved_this_month: { amount: 0, currency: "eur" },
        // Midnight of 1 December in Berlin (UTC+1).
        limit_resets_at: "2026-11-30T23:00:00.000Z",
        card: null,
        status: "off",
        paused_reason: null,
        reason_text: null,
        paused_until: null,
        consent_text_version: CONSENT_TEXT_VERSION,
        last_attempt: null,
        attempts: [],
      });
    });

    it("shows the card, a decline's sentence, this Berlin month's charges and the attempts with their invoice numbers", async () => {
      ctx.t.clock.set(new Date("2026-11-20T12:00:00Z"));
      const team = await acme();
      const { call } = await setup();
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings(),
        }),
        200,
      );
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "declined", declineCode: "insufficient_funds", reasonDetail: null })
        .where(eq(autoTopUpSettings.orgId, team.org));
      const attempt = (
        at: string,
        status: "paid" | "failed" | "cancelled" | "authentication_required",
        extra = {},
      ) => ({
        id: randomUUID(),
        orgId: team.org,
        status,
        provider: "local" as const,
        productId: PACK_500,
        credits: 500,
        currency: "eur",
        net: 5000,
        gross: 5950,
        paymentMethodId: team.card,
        createdAt: new Date(at),
        updatedAt: new Date(at),
        ...extra,
      });
      // October's (Berlin) paid attempt; November's: paid (ours), paid (Stripe's number), failed,
      // cancelled while its invoice is not yet seen void (it keeps room under the limit), awaiting
      // authentication.
      const october = attempt("2026-10-31T22:30:00Z", "paid");
      const ours = attempt("2026-10-31T23:30:00Z", "paid");
      const stripes = attempt("2026-11-10T09:00:00Z", "paid", { providerInvoiceId: "in_stripe_1" });
      const failed = attempt("2026-11-11T09:00:00Z", "failed", {
        detail: declineSentence("insufficient_funds"),
      });
      const pending = attempt("2026-11-12T09:00:00Z", "authentication_required", {
        payUrl: "https://pay.test/in_2",
        detail: PAUSE_REASONS.authentication_required.sentence,
      });
      const stopped = attempt("2026-11-11T10:00:00Z", "cancelled", { providerInvoiceId: "in_stopped" });
      await db().insert(autoTopUpAttempts).values([october, ours, stripes, failed, stopped, pending]);
      const oursInvoice = randomUUID();
      await db()
        .insert(invoices)
        .values({
          id: oursInvoice,
          userId: team.org,
          fulfilmentKey: `auto_top_up:${ours.id}`,
          provider: "local",
          kind: "topup",
          status: "paid",
          number: "INV-2026-000042",
          series: "INV-2026",
          sequence: 42,
          issuedAt: ours.createdAt,
          description: "Auto top-up",
          currency: "eur",
          net: 5000,
          tax: 950,
          total: 5950,
          seller: { name: "S", country: "DE", vatId: null },
          buyer: { name: "B", country: "DE", vatId: null },
          createdAt: ours.createdAt,
          updatedAt: ours.createdAt,
        });
      await db().insert(providerInvoiceDocuments).values({
        invoiceId: "in_stripe_1",
        number: "ABCD-0001",
        hostedInvoiceUrl: "https://invoice.stripe.test/i/1",
        updatedAt: now(),
      });

      const view = await json<AutoTopUp>(
        await call("GET", "/v1/billing/auto-top-up", team.bob.accessToken, { org: team.org }),
        200,
      );
      expect(view).toMatchObject({
        enabled: true,
        status: "paused",
        paused_reason: "declined",
        reason_text: `${PAUSE_REASONS.declined.sentence} ${declineSentence("insufficient_funds")}`,
        card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 },
        // November in Berlin began at 23:00 UTC on 31 October: what was charged, the two paid ones;
        // not the room kept for money not taken (awaiting authentication, the cancelled one's open
        // invoice), which is reserved: the limit counts the two figures together.
        charged_this_month: { amount: 2 * 5950, currency: "eur" },
        reserved_this_month: { amount: 2 * 5950, currency: "eur" },
        last_attempt: {
          at: pending.createdAt.toISOString(),
          status: "authentication_required",
          credits: 500,
          invoice_number: null,
          detail: PAUSE_REASONS.authentication_required.sentence,
        },
      });
      expect(view.attempts.map((a) => [a.status, a.invoice_number, a.pay_url])).toEqual([
        ["authentication_required", null, "https://pay.test/in_2"],
        ["cancelled", null, null],
        ["failed", null, null],
        ["paid", "ABCD-0001", null],
        ["paid", "INV-2026-000042", null],
        ["paid", null, null],
      ]);
      // Where each invoice opens, as the billing history links it: ours by its id, Stripe's page.
      expect(view.attempts.map((a) => [a.invoice_id, a.invoice_url])).toEqual([
        [null, null],
        [null, null],
        [null, null],
        [null, "https://invoice.stripe.test/i/1"],
        [oursInvoice, null],
        [null, null],
      ]);
    });
  });

  describe("PUT: refusals in their order", () => {
    it("turning it on without a saved card answers 409, before anything else is looked at", async () => {
      const team = await acme();
      await db().delete(savedCards).where(eq(savedCards.orgId, team.org));
      const { call, calls } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        // Out of range and without consent: the missing card is said first.
        body: settings({ threshold: 1, consent: undefined }),
      });
      expect(await json(res, 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.noCard });
      expect(await settingsRow(team.org)).toBeUndefined();
      expect(calls).toEqual([]);
    });

    it("turning it on without a paid plan answers 409 with the reason; a plan past due or ending at the period end is one", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      await saveCard(ann.id, ann.id);
      const { call } = await setup();
      const put = () => call("PUT", "/v1/billing/auto-top-up", ann.accessToken, { body: settings() });
      expect(await json(await put(), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.noPlan });
      await subscribe(ann.id, "past_due", true);
      expect((await json<AutoTopUp>(await put(), 200)).status).toBe("active");
    });

    it("turning it on, or resuming it, during a dispute hold answers 409 and stores nothing; turning off is not refused", async () => {
      const team = await acme();
      await db()
        .update(organizations)
        .set({ disputeHoldAt: ctx.t.clock.now() })
        .where(eq(organizations.id, team.org));
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      expect(await json(await put(settings()), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.disputeHold });
      expect(await settingsRow(team.org)).toBeUndefined();
      expect(
        (await json<AutoTopUp>(await put(settings({ enabled: false, consent: undefined })), 200)).status,
      ).toBe("off");
      // Cleared by support: the same request turns it on.
      await db().update(organizations).set({ disputeHoldAt: null }).where(eq(organizations.id, team.org));
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
      // A hold that found it on (placed by an older instance, which did not turn it off): a change
      // is not refused with "stays off"; the first charge turns it off.
      await db()
        .update(organizations)
        .set({ disputeHoldAt: ctx.t.clock.now() })
        .where(eq(organizations.id, team.org));
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
    });

    it.each([
      ["an unknown pack", { product_id: TIER("A").product }, ["product_id"], SETTINGS_MESSAGES.unknownPack],
      ["a threshold below 10", { threshold: 9 }, ["threshold"], SETTINGS_MESSAGES.thresholdTooLow],
      [
        "a threshold the pack cannot lift",
        { threshold: 500 },
        ["threshold"],
        SETTINGS_MESSAGES.thresholdTooHigh(500),
      ],
      [
        "a limit in another currency",
        { monthly_limit: { amount: 20_000, currency: "usd" } },
        ["monthly_limit", "currency"],
        SETTINGS_MESSAGES.limitCurrency("eur"),
      ],
      [
        "a limit below one pack with VAT (€59.50 at 19 %)",
        { monthly_limit: { amount: 5949, currency: "eur" } },
        ["monthly_limit", "amount"],
        SETTINGS_MESSAGES.limitTooLow("€59.50"),
      ],
      [
        "a limit above €10,000",
        { monthly_limit: { amount: 1_000_001, currency: "eur" } },
        ["monthly_limit", "amount"],
        SETTINGS_MESSAGES.limitTooHigh("€10,000.00"),
      ],
    ])("%s answers 422 naming the field", async (_name, change, loc, msg) => {
      const team = await acme();
      await details(team.org, "DE");
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings(change),
      });
      expect(await json(res, 422)).toEqual({ detail: [{ loc: ["body", ...loc], msg, type: "value_error" }] });
      expect(await settingsRow(team.org)).toBeUndefined();
    });

    it("every value out of range is named at once", async () => {
      const team = await acme();
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings({ threshold: 2, monthly_limit: { amount: 100, currency: "eur" } }),
      });
      const body = await json<{ detail: { loc: string[] }[] }>(res, 422);
      expect(body.detail.map((d) => d.loc.join("."))).toEqual([
        "body.threshold",
        "body.monthly_limit.amount",
      ]);
    });

    it.each([
      ["without consent", undefined, AUTO_TOP_UP_TEXT.consentRequired],
      [
        "with consent to another text",
        { text_version: "2025-01-old", accepted: true },
        AUTO_TOP_UP_TEXT.consentOutdated,
      ],
    ])("turning it on %s answers 422 on consent", async (_name, consent, msg) => {
      const team = await acme();
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings({ consent }),
      });
      expect(await json(res, 422)).toEqual({
        detail: [{ loc: ["body", "consent"], msg, type: "value_error" }],
      });
      expect(await consents(team.org)).toEqual([]);
    });

    it("turning it on, or raising the limit, with a sign-in older than 10 minutes asks to re-authenticate", async () => {
      const team = await acme();
      const { call } = await setup();
      ctx.t.clock.advance(STALE);
      const put = (token: string, body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", token, { org: team.org, body });
      expect(await json(await put(team.ann.accessToken, settings()), 403)).toEqual({
        detail: DETAIL.reauthRequired,
        reauth_required: true,
        methods: ["password"],
        code_required: false,
      });
      expect(await settingsRow(team.org)).toBeUndefined();
      const fresh = await tokenFor(ctx.t, "ann");
      await json(await put(fresh, settings()), 200);
      ctx.t.clock.advance(STALE);
      // Lowering the limit, or another threshold, needs consent but no new sign-in...
      await json(await put(fresh, settings({ monthly_limit: { amount: 10_000, currency: "eur" } })), 200);
      // ...raising it again above what was last consented to does.
      const raised = settings({ monthly_limit: { amount: 15_000, currency: "eur" } });
      expect((await put(fresh, raised)).status).toBe(403);
      expect((await settingsRow(team.org))?.monthlyLimit).toBe(10_000);
      await json(await put(await tokenFor(ctx.t, "ann"), raised), 200);
    });

    it("a limit saved while off is not authorised: turning it on with it later still asks to re-authenticate", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = (token: string, body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", token, { org: team.org, body });
      await json(await put(team.ann.accessToken, settings()), 200);
      ctx.t.clock.advance(STALE);
      const high = { monthly_limit: { amount: 900_000, currency: "eur" } };
      await json(await put(team.ann.accessToken, settings({ enabled: false, ...high })), 200);
      expect((await put(team.ann.accessToken, settings(high))).status).toBe(403);
    });
  });

  describe("PUT: what is stored", () => {
    it("turning on stores the consent with its text for a consumer (the waiver), the settings, the log entry, and nudges", async () => {
      const team = await acme();
      await details(team.org, "DE");
      const { call, calls } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.bob.accessToken, {
        org: team.org,
        body: settings({ monthly_limit: { amount: 20_000, currency: "EUR" } }),
        ip: "203.0.113.9",
      });
      const view = await json<AutoTopUp>(res, 200);
      expect(view).toMatchObject({
        enabled: true,
        status: "active",
        threshold: 100,
        product_id: PACK_500,
        monthly_limit: { amount: 20_000, currency: "eur" },
        paused_reason: null,
      });
      const [consent, ...more] = await consents(team.org);
      expect(more).toEqual([]);
      expect(consent).toMatchObject({
        userId: team.bob.id,
        userEmail: team.bob.email,
        textVersion: CONSENT_TEXT_VERSION,
        clientAddress: "203.0.113.9",
        userAgent: UA,
        acceptedAt: now(),
        text:
          "We will charge your card ending 4242 €50.00 plus VAT (€59.50 at today's 19 %) for 500 credits " +
          "whenever this organisation's balance falls below 100 credits, at most €200.00 including VAT per " +
          "calendar month (Europe/Berlin). You can turn this off at any time under Billing. " +
          WITHDRAWAL_WAIVER,
        choice: {
          threshold: 100,
          product_id: PACK_500,
          monthly_limit: { amount: 20_000, currency: "eur" },
          card: { payment_method_id: team.card, brand: "visa", last4: "4242" },
          vat: { treatment: "domestic", rate_basis_points: 1900 },
        },
      });
      expect(await settingsRow(team.org)).toMatchObject({
        enabled: true,
        status: "active",
        reason: null,
        cardPaymentMethodId: team.card,
        consentId: consent?.id,
        updatedBy: team.bob.id,
      });
      const [entry] = await auditOf(team.org);
      expect(entry).toMatchObject({
        action: "auto_top_up.turned_on",
        actorId: team.bob.id,
        actorLabel: "bob",
        subjectOrgId: team.org,
        subjectUserId: null,
        ip: "203.0.113.9",
        details: expect.objectContaining({ from: null, consent_id: consent?.id, user_agent: UA }),
      });
      expect(calls).toEqual([
        { method: "cancelOpenAttempt", args: [team.org, AUTO_TOP_UP_TEXT.cancelledByTurningOn] },
        { method: "nudge", args: [team.org, "turned_on"] },
      ]);
    });

    it("under reverse charge the text names the net price only, without the waiver; one pack's net is the least limit", async () => {
      const team = await acme();
      await details(team.org, "FR", "FR40303265045");
      const { call } = await setup();
      const text = await json<{ text: string; text_version: string }>(
        await call("POST", "/v1/billing/auto-top-up/consent-text", team.ann.accessToken, {
          org: team.org,
          body: { threshold: 100, product_id: PACK_500, monthly_limit: { amount: 5000, currency: "eur" } },
        }),
        200,
      );
      const expected =
        "We will charge your card ending 4242 €50.00 (reverse charge) for 500 credits whenever this " +
        "organisation's balance falls below 100 credits, at most €50.00 including VAT per calendar month " +
        "(Europe/Berlin). You can turn this off at any time under Billing.";
      expect(text).toEqual({ text: expected, text_version: CONSENT_TEXT_VERSION });
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings({ monthly_limit: { amount: 5000, currency: "eur" } }),
        }),
        200,
      );
      const [consent] = await consents(team.org);
      expect(consent?.text).toBe(expected);
      expect(consent?.choice).toMatchObject({ vat: { treatment: "reverse_charge", rate_basis_points: 0 } });
    });

    it("a VAT ID not yet confirmed is charged VAT, and the text keeps the waiver", async () => {
      const team = await acme();
      await details(team.org, "FR", "FR40303265045");
      await db().update(vatIdChecks).set({ status: "pending" });
      const { call } = await setup();
      const { text } = await json<{ text: string }>(
        await call("POST", "/v1/billing/auto-top-up/consent-text", team.ann.accessToken, {
          org: team.org,
          body: { threshold: 100, product_id: PACK_500, monthly_limit: { amount: 20_000, currency: "eur" } },
        }),
        200,
      );
      expect(text).toContain("€50.00 plus VAT (€60.00 at today's 20 %)");
      expect(text).toContain(WITHDRAWAL_WAIVER);
    });

    it("the consent text needs a saved card (409) and values in range (422)", async () => {
      const team = await acme();
      const { call } = await setup();
      const ask = (body: unknown) =>
        call("POST", "/v1/billing/auto-top-up/consent-text", team.ann.accessToken, { org: team.org, body });
      const values = {
        threshold: 100,
        product_id: PACK_1000,
        monthly_limit: { amount: 20_000, currency: "eur" },
      };
      expect(await json(await ask({ ...values, threshold: 1000 }), 422)).toEqual({
        detail: [
          { loc: ["body", "threshold"], msg: SETTINGS_MESSAGES.thresholdTooHigh(1000), type: "value_error" },
        ],
      });
      await db().delete(savedCards).where(eq(savedCards.orgId, team.org));
      expect(await json(await ask(values), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.noCard });
    });

    it("a change while on needs new consent and is logged as changed; the same values again change nothing", async () => {
      const team = await acme();
      const { call, calls } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      calls.length = 0;
      const changed = settings({ threshold: 200, consent: undefined });
      expect((await put(changed)).status).toBe(422);
      await json(await put(settings({ threshold: 200 })), 200);
      // Repeated without consent: nothing changes, so nothing is asked and nothing is logged.
      await json(await put(changed), 200);
      expect((await auditOf(team.org)).map((e) => e.action)).toEqual([
        "auto_top_up.turned_on",
        "auto_top_up.changed",
      ]);
      expect(await consents(team.org)).toHaveLength(2);
      // A change while on neither cancels the open attempt nor queues one.
      expect(calls).toEqual([]);
    });

    it("a new card while on needs consent for it", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      await saveCard(team.org, team.ann.id, "0341");
      expect((await put(settings({ consent: undefined }))).status).toBe(422);
      await json(await put(settings()), 200);
      const [latest] = await consents(team.org);
      expect(latest?.text).toContain("card ending 0341");
    });

    it("turning off is never refused: no card, no plan, an old sign-in, no consent; it cancels the open attempt", async () => {
      const team = await acme();
      const { call, calls } = await setup();
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings(),
        }),
        200,
      );
      calls.length = 0;
      await db().delete(savedCards).where(eq(savedCards.orgId, team.org));
      await db().delete(subscriptions).where(eq(subscriptions.userId, team.org));
      ctx.t.clock.advance(STALE);
      const view = await json<AutoTopUp>(
        await call("PUT", "/v1/billing/auto-top-up", team.bob.accessToken, {
          org: team.org,
          body: settings({ enabled: false, consent: undefined }),
        }),
        200,
      );
      expect(view).toMatchObject({ enabled: false, status: "off", paused_reason: null, card: null });
      expect((await auditOf(team.org)).map((e) => e.action)).toEqual([
        "auto_top_up.turned_on",
        "auto_top_up.turned_off",
      ]);
      expect(calls).toEqual([
        { method: "cancelOpenAttempt", args: [team.org, AUTO_TOP_UP_TEXT.cancelledByTurningOff] },
      ]);
    });

    it("turning off with a limit a change of VAT put below one pack is not refused", async () => {
      const team = await acme();
      await details(team.org, "FR", "FR40303265045");
      const { call } = await setup();
      const body = settings({ monthly_limit: { amount: 5000, currency: "eur" } });
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body }),
        200,
      );
      await details(team.org, "DE");
      const off = { ...body, enabled: false, consent: undefined };
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body: off }),
        200,
      );
    });

    it("values saved while off need no consent", async () => {
      const team = await acme();
      const { call } = await setup();
      const view = await json<AutoTopUp>(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings({ enabled: false, consent: undefined }),
        }),
        200,
      );
      expect(view).toMatchObject({ enabled: false, status: "off", threshold: 100 });
      expect(await consents(team.org)).toEqual([]);
      expect((await auditOf(team.org)).map((e) => e.action)).toEqual(["auto_top_up.changed"]);
    });

    it("a pause is resumed with the same values, without new consent, and nudges", async () => {
      const team = await acme();
      const { call, calls } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "daily_limit" })
        .where(eq(autoTopUpSettings.orgId, team.org));
      calls.length = 0;
      const view = await json<AutoTopUp>(await put(settings({ consent: undefined })), 200);
      expect(view).toMatchObject({ status: "active", paused_reason: null, reason_text: null });
      expect(await consents(team.org)).toHaveLength(1);
      expect((await auditOf(team.org)).map((e) => e.action)).toEqual([
        "auto_top_up.turned_on",
        "auto_top_up.resumed",
      ]);
      expect(calls).toEqual([
        { method: "cancelOpenAttempt", args: [team.org, AUTO_TOP_UP_TEXT.cancelledByTurningOn] },
        { method: "nudge", args: [team.org, "resumed"] },
      ]);
    });

    it("paused because the member who saved the card left: only a newly saved card resumes it", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = () =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body: settings() });
      await json(await put(), 200);
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "member_left" })
        .where(eq(autoTopUpSettings.orgId, team.org));
      expect(await json(await put(), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft });
      await saveCard(team.org, team.ann.id, "1881");
      expect((await json<AutoTopUp>(await put(), 200)).status).toBe("active");
    });

    it("a card whose saver left is never turned on again: not after turning off, nor from off", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      // Bob, who saved the card, leaves: the engine pauses it (member_left).
      await db().delete(organizationMembers).where(eq(organizationMembers.userId, team.bob.id));
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "member_left" })
        .where(eq(autoTopUpSettings.orgId, team.org));
      // Turning it off clears the reason; turning it on again with consent must still be refused.
      await json(await put(settings({ enabled: false, consent: undefined })), 200);
      expect(await json(await put(settings()), 409)).toEqual({
        detail: AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft,
      });
      expect(await consents(team.org)).toHaveLength(1);
      expect((await settingsRow(team.org))?.status).toBe("off");
      // A card whose saver is not known (the account deleted) is refused alike.
      await saveCard(team.org, null, "5556");
      expect(await json(await put(settings()), 409)).toEqual({
        detail: AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft,
      });
      await saveCard(team.org, team.ann.id, "1881");
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
    });

    it("a card whose saver left before it was ever turned on is refused too", async () => {
      const team = await acme();
      await db().delete(organizationMembers).where(eq(organizationMembers.userId, team.bob.id));
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings(),
      });
      expect(await json(res, 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft });
      expect(await settingsRow(team.org)).toBeUndefined();
    });

    it("consent with the text shown: stored when it is the text for these values now", async () => {
      const team = await acme();
      const { call } = await setup();
      const values = {
        threshold: 100,
        product_id: PACK_500,
        monthly_limit: { amount: 20_000, currency: "eur" },
      };
      const { text, text_version } = await json<{ text: string; text_version: string }>(
        await call("POST", "/v1/billing/auto-top-up/consent-text", team.ann.accessToken, {
          org: team.org,
          body: values,
        }),
        200,
      );
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: { enabled: true, ...values, consent: { text_version, text, accepted: true } },
        }),
        200,
      );
      const [consent] = await consents(team.org);
      expect(consent?.text).toBe(text);
    });

    it.each([
      ["another card was saved", async (org: string, ann: string) => void (await saveCard(org, ann, "0341"))],
      ["the VAT on file changed", async (org: string) => details(org, "FR")],
    ])(
      "consent to a text the member no longer sees (%s) answers 422 on consent",
      async (_name, meanwhile) => {
        const team = await acme();
        const { call } = await setup();
        const values = {
          threshold: 100,
          product_id: PACK_500,
          monthly_limit: { amount: 20_000, currency: "eur" },
        };
        const { text, text_version } = await json<{ text: string; text_version: string }>(
          await call("POST", "/v1/billing/auto-top-up/consent-text", team.bob.accessToken, {
            org: team.org,
            body: values,
          }),
          200,
        );
        await meanwhile(team.org, team.ann.id);
        const res = await call("PUT", "/v1/billing/auto-top-up", team.bob.accessToken, {
          org: team.org,
          body: { enabled: true, ...values, consent: { text_version, text, accepted: true } },
        });
        expect(await json(res, 422)).toEqual({
          detail: [{ loc: ["body", "consent"], msg: AUTO_TOP_UP_TEXT.consentChanged, type: "value_error" }],
        });
        expect(await consents(team.org)).toEqual([]);
        expect(await settingsRow(team.org)).toBeUndefined();
      },
    );

    it("a consent text longer than 2,000 characters is an invalid body", async () => {
      const team = await acme();
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings({
          consent: { text_version: CONSENT_TEXT_VERSION, text: "x".repeat(2001), accepted: true },
        }),
      });
      expect(res.status).toBe(422);
      expect(await consents(team.org)).toEqual([]);
    });

    it("resuming after the VAT on file changed needs consent to the text with the new VAT", async () => {
      const team = await acme();
      await details(team.org, "DE");
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "daily_limit" })
        .where(eq(autoTopUpSettings.orgId, team.org));
      // France's 20 % instead of Germany's 19 %: the consent on file names €59.50.
      await details(team.org, "FR");
      expect(await json(await put(settings({ consent: undefined })), 422)).toEqual({
        detail: [{ loc: ["body", "consent"], msg: AUTO_TOP_UP_TEXT.consentRequired, type: "value_error" }],
      });
      expect((await settingsRow(team.org))?.status).toBe("paused");
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
      const [latest, first] = await consents(team.org);
      expect(first?.text).toContain("€59.50 at today's 19 %");
      expect(latest?.text).toContain("€60.00 at today's 20 %");
    });

    it("resuming after a new card was saved (card_replaced) needs consent for it", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      // The same last four digits: the text alone would not tell the cards apart.
      await saveCard(team.org, team.ann.id, "4242");
      await db()
        .update(autoTopUpSettings)
        .set({ status: "paused", reason: "card_replaced" })
        .where(eq(autoTopUpSettings.orgId, team.org));
      expect((await put(settings({ consent: undefined }))).status).toBe(422);
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
      expect(await consents(team.org)).toHaveLength(2);
    });

    it.each([
      ["a limit of 0", { monthly_limit: { amount: 0, currency: "eur" } }, ["monthly_limit", "amount"]],
      ["a negative limit", { monthly_limit: { amount: -100, currency: "eur" } }, ["monthly_limit", "amount"]],
      ["a threshold of 0", { threshold: 0 }, ["threshold"]],
    ])("turning off with %s answers 422 naming the field, not 500", async (_name, change, loc) => {
      const team = await acme();
      const { call } = await setup();
      const res = await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
        org: team.org,
        body: settings({ enabled: false, consent: undefined, ...change }),
      });
      const body = await json<{ detail: { loc: string[] }[] }>(res, 422);
      expect(body.detail.map((d) => d.loc)).toEqual([["body", ...loc]]);
      expect(await settingsRow(team.org)).toBeUndefined();
    });

    it("off for a reason (the card removed) needs new consent to come back", async () => {
      const team = await acme();
      const { call } = await setup();
      const put = (body: unknown) =>
        call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, { org: team.org, body });
      await json(await put(settings()), 200);
      await db()
        .update(autoTopUpSettings)
        .set({ status: "off", reason: "plan_ended", enabled: false })
        .where(eq(autoTopUpSettings.orgId, team.org));
      expect((await put(settings({ consent: undefined }))).status).toBe(422);
      expect((await json<AutoTopUp>(await put(settings()), 200)).status).toBe("active");
      expect((await auditOf(team.org)).at(-1)?.action).toBe("auto_top_up.turned_on");
    });
  });

  describe("the card", () => {
    it("the setup page needs recent authentication, and opens in the packs' currency with the consent text", async () => {
      const team = await acme();
      const { call } = await setup();
      ctx.t.clock.advance(STALE);
      const stale = await call("POST", "/v1/billing/payment-method/setup", team.bob.accessToken, {
        org: team.org,
      });
      expect(await json(stale, 403)).toMatchObject({ detail: DETAIL.reauthRequired, reauth_required: true });
      const fresh = await tokenFor(ctx.t, "bob");
      const { url } = await json<{ url: string }>(
        await call("POST", "/v1/billing/payment-method/setup", fresh, { org: team.org }),
        200,
      );
      const [session] = await db()
        .select()
        .from(cardSetupSessions)
        .where(eq(cardSetupSessions.orgId, team.org));
      expect(session).toMatchObject({
        url,
        openedBy: team.bob.id,
        currency: "eur",
        status: "open",
        successUrl: `${TEST_PORTAL_URL}/profile/billing?card=saved`,
        cancelUrl: `${TEST_PORTAL_URL}/profile/billing?card=cancelled`,
        consentText: cardSetupConsentText(TEST_SELLER.name),
      });
      expect(session?.consentText).toBe(
        `By saving this card you allow ${TEST_SELLER.name} to charge it for the automatic credit purchases you turn on under Billing.`,
      );
    });

    it("removing the card: 404 without one; otherwise detached, forgotten, auto top-up off and logged", async () => {
      const team = await acme();
      const { call, of } = await setup();
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings(),
        }),
        200,
      );
      const view = await json<AutoTopUp>(
        await call("DELETE", "/v1/billing/payment-method", team.bob.accessToken, { org: team.org }),
        200,
      );
      expect(view).toMatchObject({
        card: null,
        enabled: false,
        status: "off",
        paused_reason: "card_removed",
      });
      expect(view.reason_text).toBe("Auto top-up is off because the saved card was removed.");
      expect(of("turnOff")).toEqual([[team.org, "card_removed", team.bob.id]]);
      expect(await db().select().from(savedCards).where(eq(savedCards.orgId, team.org))).toEqual([]);
      const entry = (await auditOf(team.org)).at(-1);
      expect(entry).toMatchObject({
        action: "auto_top_up.card_removed",
        actorId: team.bob.id,
        details: expect.objectContaining({ last4: "4242", payment_method_id: team.card }),
      });
      const again = await call("DELETE", "/v1/billing/payment-method", team.bob.accessToken, {
        org: team.org,
      });
      expect(await json(again, 404)).toEqual({ detail: AUTO_TOP_UP_TEXT.noSavedCard });
    });
  });

  it("saving billing details tells the engine, in the same transaction", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const recorder = recordingEngine();
    const commands = billingDetailsCommands({
      db: db(),
      clock: ctx.t.clock,
      provider: ctx.t.deps.payments.provider,
      autoTopUp: recorder.engine,
    });
    await commands.saveDetails({
      orgId: ann.id,
      orgName: null,
      actor: { id: ann.id, username: "ann" },
      origin: { ip: null, userAgent: null },
      details: {
        name: "Ann",
        email: ann.email,
        address: { line1: "Str. 1", line2: null, postal_code: "10115", city: "Berlin", country: "DE" },
        vatId: null,
      },
    });
    expect(recorder.of("billingDetailsChanged")).toEqual([[ann.id]]);
  });

  describe("the console", () => {
    it("support and admins see an organisation's auto top-up; customers may not; an unknown one is 404", async () => {
      const team = await acme();
      const support = await staffMember(ctx.t, "sue", "support");
      const { call } = await setup();
      const path = `/v1/admin/orgs/${team.org}/auto-top-up`;
      expect((await call("GET", path, undefined)).status).toBe(401);
      expect(await json(await call("GET", path, team.ann.accessToken), 403)).toEqual({
        detail: ADMIN_TEXT.staffOnly,
      });
      const view = await json<AutoTopUp>(await call("GET", path, support.accessToken), 200);
      expect(view).toMatchObject({ status: "off", card: { last4: "4242" } });
      const unknown = await call("GET", `/v1/admin/orgs/${randomUUID()}/auto-top-up`, support.accessToken);
      expect(await json(unknown, 404)).toEqual({ detail: ORG_DETAIL.notFound });
    });

    it("an admin turns it off with a reason in the log; support may not; off already answers 409", async () => {
      const team = await acme();
      const support = await staffMember(ctx.t, "sue", "support");
      const admin = await staffMember(ctx.t, "ada", "admin");
      const { call, of } = await setup();
      const path = `/v1/admin/orgs/${team.org}/auto-top-up/off`;
      const off = (token: string, reason = "Customer asked by phone, ticket 4711") =>
        call("POST", path, token, { body: { reason }, ip: "198.51.100.7" });
      expect(await json(await off(admin.accessToken), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.alreadyOff });
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings(),
        }),
        200,
      );
      expect(await json(await off(support.accessToken), 403)).toEqual({ detail: ADMIN_TEXT.adminOnly });
      expect(await json(await off(team.ann.accessToken), 403)).toEqual({ detail: ADMIN_TEXT.staffOnly });
      expect((await off(admin.accessToken, "x")).status).toBe(422);
      const answer = await json<{ detail: string; audit_id: string }>(await off(admin.accessToken), 200);
      expect(answer.detail).toBe(AUTO_TOP_UP_TEXT.turnedOff);
      expect(of("turnOff")).toEqual([[team.org, "staff", admin.id]]);
      const [entry] = await db().select().from(auditLog).where(eq(auditLog.id, answer.audit_id));
      expect(entry).toMatchObject({
        action: "auto_top_up.staff_turn_off",
        actorId: admin.id,
        subjectOrgId: team.org,
        reason: "Customer asked by phone, ticket 4711",
        ip: "198.51.100.7",
        details: { from: "active" },
      });
      expect((await settingsRow(team.org))?.status).toBe("off");
      expect(await json(await off(admin.accessToken), 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.alreadyOff });
    });

    it("staff never turn off the auto top-up of an organisation they are a member of", async () => {
      const team = await acme();
      const admin = await staffMember(ctx.t, "ada", "admin");
      await db()
        .insert(organizationMembers)
        .values({ orgId: team.org, userId: admin.id, role: "developer", joinedAt: now() });
      const { call, of } = await setup();
      await json(
        await call("PUT", "/v1/billing/auto-top-up", team.ann.accessToken, {
          org: team.org,
          body: settings(),
        }),
        200,
      );
      const res = await call("POST", `/v1/admin/orgs/${team.org}/auto-top-up/off`, admin.accessToken, {
        body: { reason: "Looks wrong to me" },
      });
      expect(await json(res, 403)).toEqual({ detail: ADMIN_ORG_TEXT.notOwnOrganisation });
      expect(of("turnOff")).toEqual([]);
    });
  });

  // The same calls through the whole app, as main.ts builds it: the routes are mounted, the real
  // engine is wired, and the suite checks every exchange against the OpenAPI document.
  describe("through the app", () => {
    const request = (method: string, path: string, token: string, org?: string, body?: unknown) =>
      ctx.t.app.request(path, {
        method,
        headers: {
          ...bearer(token),
          ...(org ? { "X-Organization": org } : {}),
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...fromIp(),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    it("the calls are mounted under /v1 with their role rule", async () => {
      const team = await acme();
      const view = await json<AutoTopUp>(
        await request("GET", "/v1/billing/auto-top-up", team.bob.accessToken, team.org),
        200,
      );
      expect(view).toMatchObject({
        status: "off",
        card: { last4: "4242" },
        consent_text_version: CONSENT_TEXT_VERSION,
      });
      expect((await request("GET", "/v1/billing/auto-top-up", team.carl.accessToken, team.org)).status).toBe(
        403,
      );
      const text = await request(
        "POST",
        "/v1/billing/auto-top-up/consent-text",
        team.ann.accessToken,
        team.org,
        {
          threshold: 100,
          product_id: PACK_500,
          monthly_limit: { amount: 20_000, currency: "eur" },
        },
      );
      expect((await json<{ text: string }>(text, 200)).text).toContain("card ending 4242");
    });

    it("the real engine turns it off when the card is removed, and the console sees it", async () => {
      const team = await acme();
      // Saved as on directly, so nothing nudges the engine into a charge meanwhile.
      await db().insert(autoTopUpSettings).values({
        orgId: team.org,
        enabled: true,
        status: "active",
        threshold: 100,
        productId: PACK_500,
        monthlyLimit: 20_000,
        currency: "eur",
        cardPaymentMethodId: team.card,
        updatedAt: now(),
      });
      const view = await json<AutoTopUp>(
        await request("DELETE", "/v1/billing/payment-method", team.ann.accessToken, team.org),
        200,
      );
      expect(view).toMatchObject({
        card: null,
        enabled: false,
        status: "off",
        paused_reason: "card_removed",
      });
      const admin = await staffMember(ctx.t, "ada", "admin");
      const seen = await json<AutoTopUp>(
        await request("GET", `/v1/admin/orgs/${team.org}/auto-top-up`, admin.accessToken),
        200,
      );
      expect(seen).toMatchObject({ status: "off", paused_reason: "card_removed" });
      const off = await request(
        "POST",
        `/v1/admin/orgs/${team.org}/auto-top-up/off`,
        admin.accessToken,
        undefined,
        {
          reason: "Customer asked by phone",
        },
      );
      expect(await json(off, 409)).toEqual({ detail: AUTO_TOP_UP_TEXT.alreadyOff });
      expect((await auditOf(team.org)).map((e) => e.action)).toEqual([
        "auto_top_up.turned_off",
        "auto_top_up.card_removed",
      ]);
    });

    it("billing details that make one pack cost more than the limit pause it, and say why", async () => {
      const team = await acme();
      const give = (country: string, vat_id?: string) =>
        request("PUT", "/v1/billing/details", team.ann.accessToken, team.org, {
          name: "Acme SAS",
          email: "books@acme.test",
          address: { line1: "1 rue de Rivoli", postal_code: "75001", city: "Paris", country },
          ...(vat_id ? { vat_id } : {}),
        });
      await json(await give("FR", "FR40303265045"), 200);
      // Reverse charge: one pack costs its net, €50.00, exactly the limit.
      await db().insert(autoTopUpSettings).values({
        orgId: team.org,
        enabled: true,
        status: "active",
        threshold: 100,
        productId: PACK_500,
        monthlyLimit: 5000,
        currency: "eur",
        cardPaymentMethodId: team.card,
        updatedAt: now(),
      });
      await json(await give("FR"), 200);
      const view = await json<AutoTopUp>(
        await request("GET", "/v1/billing/auto-top-up", team.ann.accessToken, team.org),
        200,
      );
      expect(view).toMatchObject({
        status: "paused",
        paused_reason: "limit_below_pack",
        reason_text: PAUSE_REASONS.limit_below_pack.sentence,
      });
    });
  });
});
