// The billing calls through the API, with the local provider behind them: catalogue, checkouts,
// the hosted page, plan changes and cancellations, renewals and expiry by moving the clock.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { BILLING_DETAILS_MESSAGES } from "../../../contract/billing-details-messages.ts";
import { countryOptions } from "../../../contract/countries.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { localSubscriptions, organizations } from "../../db/schema/index.ts";
import { escapeHtml } from "../../mail/templates.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import {
  advanceDays,
  giveDetails,
  ledger,
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  payAt,
  subscribe,
  TIER,
  TOP_UP,
  tokenFor,
} from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS, TEST_PORTAL_URL } from "../../testing/test-app.ts";

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

describe.each(TEST_DATABASES)("billing API (%s)", (kind) => {
  const ctx = useTestApp(kind);

  describe("catalogue", () => {
    it("lists tiers A to E with their default prices, with or without a token", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      for (const token of [undefined, user.accessToken, "not-a-token"]) {
        const res = await getJson(ctx.t.app, "/v1/subscription/products", token);
        expect(res.status).toBe(200);
        expect(res.headers.get("cache-control")).toBe("public, max-age=300");
        const { data } = (await res.json()) as {
          data: { id: string; name: string; default_price: { id: string } }[];
        };
        expect(data.map((p) => p.name)).toEqual(["Tier A", "Tier B", "Tier C", "Tier D", "Tier E"]);
        expect(data[1]).toMatchObject({ id: TIER("B").product, default_price: { id: TIER("B").price } });
      }
    });

    it("lists the two top-up packs with their credit amounts", async () => {
      const res = await getJson(ctx.t.app, "/v1/top-up/products");
      const { data } = (await res.json()) as {
        data: {
          id: string;
          metadata: { token_amount: string };
          default_price: { unit_amount: number; currency: string };
        }[];
      };
      expect(data).toMatchObject([
        {
          id: TOP_UP("500").product,
          metadata: { token_amount: "500" },
          default_price: { unit_amount: 5000, currency: "eur" },
        },
        {
          id: TOP_UP("1000").product,
          metadata: { token_amount: "1000" },
          default_price: { unit_amount: 9000, currency: "eur" },
        },
      ]);
    });
  });

  describe("checkout errors", () => {
    it.each([
      ["an unknown product", { product: "prod_nope", price: "price_nope" }, 404, "Product not found"],
      [
        "a price of another tier",
        { product: TIER("A").product, price: TIER("B").price },
        404,
        "Price not found for this product",
      ],
      [
        "a top-up as a tier",
        { product: TOP_UP("500").product, price: TOP_UP("500").price },
        404,
        "Product not found",
      ],
    ])("subscription checkout for %s: %i", async (_label, body, status, detail) => {
      const user = await verifiedUser(ctx.t, "ann");
      const res = await postJson(ctx.t.app, "/v1/create-checkout-session", body, auth(user.accessToken));
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail });
    });

    it("answers 401 without a token and 422 for a body without fields", async () => {
      expect((await postJson(ctx.t.app, "/v1/create-checkout-session", {})).status).toBe(401);
      const user = await verifiedUser(ctx.t, "ann");
      expect(
        (await postJson(ctx.t.app, "/v1/create-checkout-session", {}, auth(user.accessToken))).status,
      ).toBe(422);
      expect(
        (await postJson(ctx.t.app, "/v1/create-top-up-checkout", "nope", auth(user.accessToken))).status,
      ).toBe(422);
    });

    it("a FREE user cannot buy top-ups (403)", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const res = await postJson(
        ctx.t.app,
        "/v1/create-top-up-checkout",
        { product_id: TOP_UP("500").product },
        auth(user.accessToken),
      );
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: "Top-ups are not available on the Free plan" });
    });

    it("a subscriber cannot open a second subscription checkout (409), and an unknown pack is 404", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "A");
      const res = await postJson(
        ctx.t.app,
        "/v1/create-checkout-session",
        { product: TIER("B").product, price: TIER("B").price },
        auth(user.accessToken),
      );
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ detail: "You already have an active subscription" });
      const pack = await postJson(
        ctx.t.app,
        "/v1/create-top-up-checkout",
        { product_id: TIER("A").product },
        auth(user.accessToken),
      );
      expect(pack.status).toBe(404);
    });
  });

  describe("the local hosted checkout page", () => {
    it("shows product, amount, the card field, Pay and Cancel, under its own strict policy", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "B");
      expect(path).toMatch(/^\/_checkout\/cs_test_\w{24}$/);
      const res = await ctx.t.app.request(path);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain(`form-action 'self' ${TEST_PORTAL_URL}`);
      expect(csp).not.toContain("script-src");
      // First the billing details: the VAT depends on them.
      const details = await res.text();
      expect(details).toContain("Tier B");
      expect(details).toMatch(/<label for="buyer-name">Name on the invoice<\/label>/);
      expect(details).toMatch(/<label for="buyer-country">Country<\/label>/);
      // The names the portal's billing details form shows, in its order (contract/countries.ts), not
      // another list's nor the server runtime's own region names ("Hong Kong SAR China" in Node 24).
      // Its empty choice in the form's words too.
      expect(details).toContain(`<option value="">${BILLING_DETAILS_MESSAGES.countryPlaceholder}</option>`);
      const offered = [...details.matchAll(/<option value="([A-Z]{2})"(?: selected)?>([^<]*)<\/option>/g)];
      expect(offered.map(([, code, name]) => ({ code, name }))).toEqual(
        countryOptions().map(({ code, name }) => ({ code, name: escapeHtml(name) })),
      );
      expect(details).toContain('<option value="CZ">Czechia</option>');
      expect(details).toContain('<option value="HK">Hong Kong</option>');
      expect(details).toMatch(/<label for="buyer-vat-id">VAT ID \(optional, for businesses\)<\/label>/);
      expect(details).toContain('<button type="submit">Continue</button>');
      expect(details).not.toContain("Card number");
      expect(details).toContain(`<a class="cancel" href="${TEST_PORTAL_URL}/payment/failed">Cancel</a>`);
      // Then the total with its VAT, the card and Pay.
      expect((await giveDetails(ctx.t, path)).status).toBe(303);
      const html = await (await ctx.t.app.request(path)).text();
      expect(html).toContain("VAT (19 %)");
      expect(html).toMatch(/<label for="card-number">Card number<\/label>/);
      expect(html).toContain('<button type="submit">Pay</button>');
      expect(html).toContain(`<a class="cancel" href="${TEST_PORTAL_URL}/payment/failed">Cancel</a>`);
    });

    it("declines 4000 0000 0000 0002 and stays on the page; rejects other numbers clearly", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "A");
      const declined = await payAt(ctx.t, path, "4000 0000 0000 0002");
      expect(declined.status).toBe(200);
      expect(await declined.text()).toContain("Your card was declined.");
      const other = await payAt(ctx.t, path, "1234");
      expect(other.status).toBe(200);
      expect(await other.text()).toContain("This test checkout accepts the test cards");
      expect((await me(ctx.t, user.accessToken)).subscription.plan).toBe("FREE");
    });

    it("pays once with 4242…, redirects to the success URL, and the second payment is refused", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "B");
      const res = await payAt(ctx.t, path, "4242424242424242");
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`${TEST_PORTAL_URL}/payment/success`);
      await ctx.t.tasks.idle();
      const again = await payAt(ctx.t, path);
      expect(again.status).toBe(409);
      expect((await ctx.t.app.request(path)).status).toBe(409);
      expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS + 5000);
    });

    it("answers 404 for an unknown session and 410 once a session expired, never 500", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      expect((await ctx.t.app.request("/_checkout/cs_test_unknown")).status).toBe(404);
      expect((await payAt(ctx.t, "/_checkout/cs_test_unknown")).status).toBe(404);
      const path = await openSubscriptionCheckout(ctx.t, user.accessToken, "A");
      ctx.t.clock.advance(24 * 3_600_000);
      expect((await ctx.t.app.request(path)).status).toBe(410);
      expect((await payAt(ctx.t, path)).status).toBe(410);
    });
  });

  describe("subscription lifecycle", () => {
    it("a paid checkout makes the user Tier B with the tier's credits at once", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      ctx.t.clock.advance(5000);
      const paidAt = ctx.t.clock.now();
      await subscribe(ctx.t, user.accessToken, "B");
      const u = await me(ctx.t, user.accessToken);
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 5000);
      expect(u.subscription).toEqual({
        plan: "Tier B",
        product_id: TIER("B").product,
        status: "active",
        expires_at: expect.any(String),
        cancel_at_period_end: false,
        scheduled_plan: null,
      });
      const expires = new Date(u.subscription.expires_at ?? "");
      expect(expires.getTime() - paidAt.getTime()).toBeGreaterThan(27 * 86_400_000);
      const entries = await ledger(ctx.t, user.accessToken);
      expect(entries.map((e) => [e.kind, e.amount, e.source])).toEqual([
        ["subscription", 5000, "Tier B subscription"],
        ["free", TEST_FREE_CREDITS, "Free plan"],
      ]);
    });

    it("two subscription checkouts opened side by side: paying one closes the other", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const first = await openSubscriptionCheckout(ctx.t, user.accessToken, "A");
      const second = await openSubscriptionCheckout(ctx.t, user.accessToken, "B");
      await payAndSettle(ctx.t, first);
      // The second would buy nothing now (second-subscription.test.ts: one paid all the same).
      expect((await payAt(ctx.t, second)).status).toBe(410);
      await ctx.t.tasks.idle();
      const u = await me(ctx.t, user.accessToken);
      expect(u.subscription.plan).toBe("Tier A");
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 1000);
      const subs = await ctx.t.deps.db.select().from(localSubscriptions);
      expect(subs.map((s) => [s.productId, s.status])).toEqual([[TIER("A").product, "active"]]);
    });

    it("a top-up on a paid plan adds its credits, expiring in six months", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "A");
      ctx.t.clock.advance(5000);
      await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
      expect((await me(ctx.t, user.accessToken)).credit_balance).toBe(TEST_FREE_CREDITS + 1000 + 500);
      const [topUp] = await ledger(ctx.t, user.accessToken);
      expect(topUp).toMatchObject({ kind: "topup", amount: 500, remaining: 500, source: "500 credit pack" });
      const months =
        (new Date(topUp?.expires_at ?? "").getTime() - new Date(topUp?.granted_at ?? "").getTime()) /
        86_400_000;
      expect(months).toBeGreaterThan(180);
      expect(months).toBeLessThan(185);
    });

    // /profile/billing tells a held organisation that it can still pay (dispute-hold-text.ts): the
    // hold refuses the keys' API calls (consume), not checkouts; the credits come, usable later.
    it("a dispute hold refuses no payment: a plan, a pack and a plan change go through, the hold stays", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await ctx.t.deps.db
        .update(organizations)
        .set({ disputeHoldAt: ctx.t.clock.now() })
        .where(eq(organizations.id, user.id));
      await subscribe(ctx.t, user.accessToken, "A");
      ctx.t.clock.advance(5000);
      await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
      expect(await me(ctx.t, user.accessToken)).toMatchObject({
        credit_balance: TEST_FREE_CREDITS + 1000 + 500,
        dispute_hold: true,
      });
      const change = await postJson(
        ctx.t.app,
        "/v1/update-subscription",
        { product_id: TIER("B").product },
        { Authorization: `Bearer ${user.accessToken}` },
      );
      expect(change.status).toBe(200);
    });

    it("renews at the period end, granting the credits at the next midnight in Berlin", async () => {
      ctx.t.clock.set("2030-01-15T10:00:00.000Z");
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "A");
      // 2030-02-15T10:00Z: the period ends, the renewal is charged at once.
      await advanceDays(ctx.t, 31);
      const token = await tokenFor(ctx.t, "ann");
      const entries = await ledger(ctx.t, token);
      const renewal = entries.find(
        (e) =>
          e.granted_at !== entries.at(-1)?.granted_at &&
          e.kind === "subscription" &&
          e.remaining === 1000 &&
          new Date(e.granted_at) > new Date("2030-02-01"),
      );
      // Midnight in Berlin (CET, UTC+1) after 2030-02-15T10:00Z is 2030-02-15T23:00Z.
      expect(renewal?.granted_at).toBe("2030-02-15T23:00:00.000Z");
      // Before that midnight the renewal is listed but not spendable; the first month's credits
      // expired exactly at the period end.
      expect((await me(ctx.t, token)).credit_balance).toBe(TEST_FREE_CREDITS);
      await advanceDays(ctx.t, 1);
      const u = await me(ctx.t, await tokenFor(ctx.t, "ann"));
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 1000);
      expect(u.subscription.expires_at).toBe("2030-03-15T10:00:00.000Z");
    });

    it("update-subscription schedules the change for the period end, then the new tier renews", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "A");
      const res = await postJson(
        ctx.t.app,
        "/v1/update-subscription",
        { product_id: TIER("C").product },
        auth(user.accessToken),
      );
      expect(res.status).toBe(200);
      const u = (await res.json()) as Awaited<ReturnType<typeof me>>;
      expect(u.subscription).toMatchObject({ plan: "Tier A", scheduled_plan: "Tier C" });
      await ctx.t.tasks.idle();
      // The job charges the renewal when the period ends; its credits arrive the next Berlin midnight.
      await advanceDays(ctx.t, 31);
      await advanceDays(ctx.t, 1);
      const after = await me(ctx.t, await tokenFor(ctx.t, "ann"));
      expect(after.subscription).toMatchObject({ plan: "Tier C", scheduled_plan: null, status: "active" });
      expect(after.credit_balance).toBe(TEST_FREE_CREDITS + 10000);
    });

    it.each([
      ["a FREE user", null, { product_id: TIER("B").product }, 400, "You don't have a paid plan"],
      ["the plan one is on", "A", { product_id: TIER("A").product }, 400, "You are already on that plan"],
      ["an unknown tier", "A", { product_id: "prod_nope" }, 404, "Product not found"],
    ] as const)("update-subscription to %s is refused", async (_label, tier, body, status, detail) => {
      const user = await verifiedUser(ctx.t, "ann");
      if (tier) await subscribe(ctx.t, user.accessToken, tier);
      const res = await postJson(ctx.t.app, "/v1/update-subscription", body, auth(user.accessToken));
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail });
    });

    it("cancel-subscription keeps the plan until the period end, then FREE with unexpired credits kept", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "A");
      await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "1000"));
      const res = await postJson(ctx.t.app, "/v1/cancel-subscription", {}, auth(user.accessToken));
      expect(res.status).toBe(200);
      expect(((await res.json()) as Awaited<ReturnType<typeof me>>).subscription).toMatchObject({
        plan: "Tier A",
        cancel_at_period_end: true,
      });
      await ctx.t.tasks.idle();
      await advanceDays(ctx.t, 32);
      const token = await tokenFor(ctx.t, "ann");
      const u = await me(ctx.t, token);
      expect(u.subscription.plan).toBe("FREE");
      // The subscription month expired; the top-up (six months) and the free credits stay.
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS + 1000);
      const cancelAgain = await postJson(ctx.t.app, "/v1/cancel-subscription", {}, auth(token));
      expect(cancelAgain.status).toBe(400);
      expect(await cancelAgain.json()).toEqual({ detail: "You don't have a paid plan" });
    });

    it("a card that declines renewals ends in FREE once the provider gives up", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await subscribe(ctx.t, user.accessToken, "B", "4000 0000 0000 0341");
      await advanceDays(ctx.t, 31);
      expect((await me(ctx.t, await tokenFor(ctx.t, "ann"))).subscription.status).toBe("past_due");
      for (let i = 0; i < 4; i++) await advanceDays(ctx.t, 7);
      const token = await tokenFor(ctx.t, "ann");
      const u = await me(ctx.t, token);
      expect(u.subscription.plan).toBe("FREE");
      expect(u.credit_balance).toBe(TEST_FREE_CREDITS);
      // Only the first payment was granted.
      expect((await ledger(ctx.t, token)).filter((e) => e.kind === "subscription")).toHaveLength(1);
    });
  });

  it("limits the signed-in billing writes per user, together: 429 with Retry-After once the minute's budget is spent", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const calls: Array<[string, Record<string, unknown>]> = [
      ["/v1/create-checkout-session", { product: TIER("A").product, price: TIER("A").price }],
      ["/v1/create-top-up-checkout", { product_id: "prod_unknown" }],
      ["/v1/update-subscription", { product_id: TIER("B").product }],
      ["/v1/cancel-subscription", {}],
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [path, body] = calls[i % calls.length] as [string, Record<string, unknown>];
      statuses.push((await postJson(ctx.t.app, path, body, auth(ann.accessToken))).status);
    }
    expect(statuses).not.toContain(429);
    for (const [path, body] of calls) {
      const res = await postJson(ctx.t.app, path, body, auth(ann.accessToken));
      expect(res.status, path).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    }
    // Another user's budget is their own.
    expect((await postJson(ctx.t.app, "/v1/cancel-subscription", {}, auth(bob.accessToken))).status).toBe(
      400,
    );
  });
});
