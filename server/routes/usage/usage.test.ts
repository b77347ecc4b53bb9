// GET /v1/usage and GET /v1/usage.csv: charges made through consume, summed per Berlin day (across
// the clock changes and month ends), feature and key, over a range of days; every charge as CSV.
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditSpends } from "../../db/schema/index.ts";
import { staffMember } from "../../testing/admin.ts";
import { consumeRequest, createKey, serviceKey } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { tokenFor } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

type Usage = {
  from: string;
  to: string;
  data: Record<string, unknown>[];
  total: { uses: number; credits: number };
};

describe.each(TEST_DATABASES)("usage history (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  let sequence = 0;

  /** An account that exists from 1 March 2026 (its free credits are live from then). */
  async function setUp() {
    ctx.t.clock.set("2026-03-01T10:00:00Z");
    const ann = await verifiedUser(ctx.t, "ann");
    return { ann, service: await serviceKey(ctx.t) };
  }

  /** A charge made by the generation service at `at`. */
  async function chargeAt(service: string, at: string, body: Record<string, unknown>) {
    ctx.t.clock.set(at);
    sequence += 1;
    const res = await consumeRequest(ctx.t, service, { idempotency_key: `gen-${sequence}`, ...body });
    expect(res.status, await res.clone().text()).toBe(200);
  }

  async function usage(token: string, query: string): Promise<Usage> {
    const res = await getJson(ctx.t.app, `/v1/usage?${query}`, token);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Usage;
  }

  it("sums per Berlin day across the spring and autumn clock changes and the month end", async () => {
    const { ann, service } = await setUp();
    const charge = (at: string) =>
      chargeAt(service, at, { user_id: ann.id, feature: "background-remover", people: "one" });
    // [UTC instant, its Berlin day]
    const charges = [
      ["2026-03-28T22:59:59Z", "2026-03-28"], // 23:59:59 CET
      ["2026-03-28T23:00:00Z", "2026-03-29"], // 00:00 CET, the short day (23 hours)
      ["2026-03-29T21:59:59Z", "2026-03-29"], // 23:59:59 CEST
      ["2026-03-29T22:00:00Z", "2026-03-30"], // 00:00 CEST
      ["2026-03-31T21:59:59Z", "2026-03-31"], // the month's last second in Berlin
      ["2026-03-31T22:00:00Z", "2026-04-01"], // April in Berlin, still March in UTC
      ["2026-10-25T00:30:00Z", "2026-10-25"], // 02:30 CEST, the long day (25 hours)
      ["2026-10-25T01:30:00Z", "2026-10-25"], // the repeated 02:30, now CET
      ["2026-10-25T22:59:59Z", "2026-10-25"], // 23:59:59 CET
      ["2026-10-25T23:00:00Z", "2026-10-26"],
    ];
    for (const [at] of charges) await charge(at as string);
    ctx.t.clock.set("2026-11-01T12:00:00Z");
    const token = await tokenFor(ctx.t, "ann");

    const spring = await usage(token, "from=2026-03-28&to=2026-04-01&group_by=day");
    expect(spring.data).toEqual([
      { date: "2026-03-28", uses: 1, credits: 0.1 },
      { date: "2026-03-29", uses: 2, credits: 0.2 },
      { date: "2026-03-30", uses: 1, credits: 0.1 },
      { date: "2026-03-31", uses: 1, credits: 0.1 },
      { date: "2026-04-01", uses: 1, credits: 0.1 },
    ]);
    expect(spring.total).toEqual({ uses: 6, credits: 0.6 });

    const autumn = await usage(token, "from=2026-10-25&to=2026-10-26");
    expect(autumn.data).toEqual([
      { date: "2026-10-25", uses: 3, credits: 0.3 },
      { date: "2026-10-26", uses: 1, credits: 0.1 },
    ]);
    // One day alone: both ends are Berlin's midnights.
    expect((await usage(token, "from=2026-03-29&to=2026-03-29")).total).toEqual({ uses: 2, credits: 0.2 });
    expect((await usage(token, "from=2026-03-31&to=2026-03-31")).total).toEqual({ uses: 1, credits: 0.1 });
  });

  it("groups by feature and by key, counts quantities as uses, and names revoked keys", async () => {
    const { ann, service } = await setUp();
    const worker = await createKey(ctx.t, ann.accessToken, { name: "Worker" });
    const night = await createKey(ctx.t, ann.accessToken, { name: "Nightly" });
    await chargeAt(service, "2026-03-02T09:00:00Z", {
      api_key_id: worker.id,
      feature: "comic",
      people: "one",
    });
    await chargeAt(service, "2026-03-02T10:00:00Z", {
      api_key_id: worker.id,
      feature: "background-remover",
      people: "multiple",
      quantity: 3,
    });
    await chargeAt(service, "2026-03-03T09:00:00Z", {
      api_key_id: night.id,
      feature: "comic",
      people: "multiple",
      quantity: 2,
    });
    // A charge without a key, and the admin's manual form (no feature).
    await chargeAt(service, "2026-03-03T10:00:00Z", {
      user_id: ann.id,
      feature: "skin-refiner",
      people: "one",
    });
    const admin = (await staffMember(ctx.t, "boss", "admin")).accessToken;
    await chargeAt(admin, "2026-03-03T11:00:00Z", { user_id: ann.id, amount: 1.5, reason: "support" });
    ctx.t.clock.set("2026-03-04T12:00:00Z");
    const token = await tokenFor(ctx.t, "ann");
    const revoked = await ctx.t.app.request(`/v1/api-keys/${night.id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(204);

    const byFeature = await usage(token, "group_by=feature");
    expect(byFeature.data).toEqual([
      { feature: null, uses: 1, credits: 1.5 },
      { feature: "background-remover", uses: 3, credits: 0.3 },
      { feature: "comic", uses: 3, credits: 15 },
      { feature: "skin-refiner", uses: 1, credits: 1 },
    ]);
    expect(byFeature.total).toEqual({ uses: 8, credits: 17.8 });

    const byKey = await usage(token, "group_by=api_key");
    expect(byKey.data).toEqual([
      { api_key_id: null, api_key_name: null, api_key_prefix: null, uses: 2, credits: 2.5 },
      ...[
        {
          api_key_id: worker.id,
          api_key_name: "Worker",
          api_key_prefix: worker.prefix,
          uses: 4,
          credits: 5.3,
        },
        { api_key_id: night.id, api_key_name: "Nightly", api_key_prefix: night.prefix, uses: 2, credits: 10 },
      ].sort((a, b) => (a.api_key_id < b.api_key_id ? -1 : 1)),
    ]);

    // Several dimensions at once, in the contract's order whatever order they are asked in.
    const stacked = await usage(token, "group_by=feature,day");
    expect(stacked.data).toEqual([
      { date: "2026-03-02", feature: "background-remover", uses: 3, credits: 0.3 },
      { date: "2026-03-02", feature: "comic", uses: 1, credits: 5 },
      { date: "2026-03-03", feature: null, uses: 1, credits: 1.5 },
      { date: "2026-03-03", feature: "comic", uses: 2, credits: 10 },
      { date: "2026-03-03", feature: "skin-refiner", uses: 1, credits: 1 },
    ]);
  });

  it("sums concurrent charges exactly: the daily sums agree with the charges and the balance", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken);
    ctx.t.clock.set("2026-03-02T09:00:00Z");
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => {
        // Every fifth request repeats the one before it exactly: charged once.
        const i = n % 5 === 4 ? n - 1 : n;
        return consumeRequest(ctx.t, service, {
          ...(i % 2 === 0 ? { api_key_id: key.id } : { user_id: ann.id }),
          feature: i % 4 < 2 ? "background-remover" : "standard-filter",
          people: "one",
          quantity: 1 + (i % 3),
          idempotency_key: `burst-${i}`,
        });
      }),
    );
    for (const res of answers) expect(res.status).toBe(200);
    const token = await tokenFor(ctx.t, "ann");
    const usageNow = await usage(token, "from=2026-03-02&to=2026-03-02&group_by=feature,api_key");
    const spends = await ctx.database.db.select().from(creditSpends);
    expect(spends).toHaveLength(32);
    expect(usageNow.total).toEqual({
      uses: spends.reduce((n, s) => n + (s.quantity ?? 1), 0),
      credits: spends.reduce((n, s) => n + s.amount, 0) / 1000,
    });
    const me = await getJson(ctx.t.app, "/v1/users/me", token);
    expect(((await me.json()) as { credit_balance: number }).credit_balance).toBeCloseTo(
      50 - usageNow.total.credits,
      3,
    );
    expect(usageNow.data).toHaveLength(4);
  });

  it("defaults to the last 30 Berlin days, and counts a range from either end", async () => {
    const { ann, service } = await setUp();
    await chargeAt(service, "2026-03-02T09:00:00Z", { user_id: ann.id, feature: "comic", people: "one" });
    // 23:30 UTC on 31 March is 1 April in Berlin: "today" is Berlin's.
    ctx.t.clock.set("2026-03-31T22:30:00Z");
    const token = await tokenFor(ctx.t, "ann");
    const fallback = await usage(token, "");
    expect([fallback.from, fallback.to]).toEqual(["2026-03-03", "2026-04-01"]);
    expect(fallback.data).toEqual([]);
    expect(fallback.total).toEqual({ uses: 0, credits: 0 });
    const fromOnly = await usage(token, "from=2026-03-02");
    expect([fromOnly.from, fromOnly.to]).toEqual(["2026-03-02", "2026-03-31"]);
    expect(fromOnly.total).toEqual({ uses: 1, credits: 5 });
    const toOnly = await usage(token, "to=2026-03-10");
    expect([toOnly.from, toOnly.to]).toEqual(["2026-02-09", "2026-03-10"]);
    expect(toOnly.total.uses).toBe(1);
    // The longest range is 366 days, both ends included.
    expect((await usage(token, "from=2025-04-01&to=2026-04-01")).to).toBe("2026-04-01");
  });

  it("shows only the caller's own charges", async () => {
    const { ann, service } = await setUp();
    await chargeAt(service, "2026-03-02T09:00:00Z", { user_id: ann.id, feature: "comic", people: "one" });
    const bob = await verifiedUser(ctx.t, "bob");
    expect((await usage(bob.accessToken, "from=2026-03-01")).data).toEqual([]);
    const csv = await getJson(ctx.t.app, "/v1/usage.csv?from=2026-03-01", bob.accessToken);
    expect(await csv.text()).toBe(
      "time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key\n",
    );
  });

  it.each([
    ["from=2026-13-01", "from", "Use a date as YYYY-MM-DD"],
    ["from=2026-02-30", "from", "Use a date as YYYY-MM-DD"],
    ["to=yesterday", "to", "Use a date as YYYY-MM-DD"],
    ["from=2026-3-1", "from", "Use a date as YYYY-MM-DD"],
    // Too long and no date: one message, not one per broken rule.
    ["from=2026-12-01T00:00&to=2026-12-01", "from", "Use a date as YYYY-MM-DD"],
    ["from=2026-03-10&to=2026-03-09", "from", "'from' must not be after 'to'"],
    ["from=2025-03-31&to=2026-04-01", "to", "The range can be at most 366 days"],
    [
      "group_by=week",
      "group_by",
      "Group by day, feature, api_key, member, or several of them separated by commas",
    ],
    [
      "group_by=",
      "group_by",
      "Group by day, feature, api_key, member, or several of them separated by commas",
    ],
    [
      "group_by=day,hour",
      "group_by",
      "Group by day, feature, api_key, member, or several of them separated by commas",
    ],
  ])("refuses %s with a 422 on the query field", async (query, field, message) => {
    const { ann } = await setUp();
    for (const path of ["/v1/usage", "/v1/usage.csv"]) {
      const res = await getJson(ctx.t.app, `${path}?${query}`, ann.accessToken);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["query", field], msg: message, type: expect.any(String) }],
      });
    }
  });

  it("answers 401 without a valid access token", async () => {
    for (const path of ["/v1/usage", "/v1/usage.csv"]) {
      expect((await getJson(ctx.t.app, path)).status).toBe(401);
      expect((await getJson(ctx.t.app, path, "not-a-token")).status).toBe(401);
    }
  });

  it("lists every charge as CSV, oldest first, with the key's name and a formula kept as text", async () => {
    const { ann, service } = await setUp();
    const key = await createKey(ctx.t, ann.accessToken, { name: '=HYPERLINK("x")' });
    await chargeAt(service, "2026-03-02T09:00:00Z", {
      api_key_id: key.id,
      feature: "background-remover",
      people: "multiple",
      quantity: 3,
      idempotency_key: 'job, "one"',
    });
    await chargeAt(service, "2026-07-01T09:00:00Z", { user_id: ann.id, feature: "comic", people: "one" });
    ctx.t.clock.set("2026-07-02T12:00:00Z");
    const token = await tokenFor(ctx.t, "ann");

    const res = await getJson(ctx.t.app, "/v1/usage.csv?from=2026-03-01&to=2026-07-01", token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      'attachment; filename="usage-2026-03-01-to-2026-07-01.csv"',
    );
    expect((await res.text()).split("\n")).toEqual([
      "time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key",
      `2026-03-02T10:00:00+01:00,background-remover,multiple,3,0.3,"'=HYPERLINK(""x"")",${key.prefix},"job, ""one"""`,
      `2026-07-01T11:00:00+02:00,comic,one,1,5,,,gen-${sequence}`,
      "",
    ]);
  });
});

describe.each(TEST_DATABASES)("back-dated charges for simulated history (%s)", (kind) => {
  const test = useTestApp(kind, { limits: NO_LIMITS });
  const dev = useTestApp(kind, { limits: NO_LIMITS, nodeEnv: "development" });

  const body = (userId: string, at: string, idempotencyKey = "sim-1") => ({
    user_id: userId,
    feature: "comic",
    people: "one",
    idempotency_key: idempotencyKey,
    at,
  });

  it("a server outside development refuses them", async () => {
    test.t.clock.set("2026-11-24T10:00:00Z");
    const ann = await verifiedUser(test.t, "ann");
    const res = await consumeRequest(test.t, await serviceKey(test.t), body(ann.id, "2026-11-01T10:00:00Z"));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      detail: [
        {
          loc: ["body", "at"],
          msg: "A charge's time ('at') can be given only on a development server",
          type: "value_error",
        },
      ],
    });
  });

  it("a development server records the charge at its time, counted in that month, spent from today's balance", async () => {
    dev.t.clock.set("2026-11-24T10:00:00Z");
    const ann = await verifiedUser(dev.t, "ann");
    const service = await serviceKey(dev.t);
    const key = await createKey(dev.t, ann.accessToken);
    const res = await consumeRequest(dev.t, service, {
      api_key_id: key.id,
      feature: "comic",
      people: "one",
      idempotency_key: "sim-key",
      at: "2026-10-31T22:30:00Z",
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ credit_balance: 45, charged: 5 });
    const october = await getJson(dev.t.app, "/v1/usage?from=2026-10-01&to=2026-10-31", ann.accessToken);
    expect(((await october.json()) as Usage).data).toEqual([{ date: "2026-10-31", uses: 1, credits: 5 }]);
    // Counted in October: November's use of the key is still nothing.
    const keys = await getJson(dev.t.app, "/v1/api-keys", ann.accessToken);
    expect(((await keys.json()) as { data: { credits_used_this_month: number }[] }).data[0]).toMatchObject({
      credits_used_this_month: 0,
    });

    for (const [at, msg] of [
      ["2026-11-24T10:00:01Z", "A charge's time ('at') cannot be in the future"],
      ["2025-11-22T10:00:00Z", "A charge's time ('at') can be at most 366 days ago"],
      ["yesterday", "Use an ISO 8601 date-time"],
    ]) {
      const refused = await consumeRequest(dev.t, service, body(ann.id, at as string, `bad-${at}`));
      expect(refused.status).toBe(422);
      expect(
        ((await refused.json()) as { detail: { loc: string[]; msg: string }[] }).detail[0],
      ).toMatchObject({
        loc: ["body", "at"],
        msg,
      });
    }
  });
});
