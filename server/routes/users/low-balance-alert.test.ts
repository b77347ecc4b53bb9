// The low-balance alert: off by default; once on, one mail when a charge takes the balance from at
// least the threshold to below it, also when many charges cross it at once; again after the
// balance has risen above it and falls once more.
import { describe, expect, it } from "vitest";
import { LOW_BALANCE_RULES } from "../../../contract/alerts.ts";
import { PRODUCT_NAME } from "../../../contract/brand.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { staffMember } from "../../testing/admin.ts";
import { bearer, consumeRequest, serviceKey } from "../../testing/api-access.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, TEST_FREE_CREDITS } from "../../testing/test-app.ts";

const PATH = "/v1/users/me/low-balance-alert";

describe.each(TEST_DATABASES)("low-balance alert (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const put = (token: string, body: unknown) =>
    ctx.t.app.request(PATH, {
      method: "PUT",
      headers: { ...bearer(token), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });

  const alertMails = async (to: string) =>
    (await ctx.t.mails()).filter((m) => m.to === to && m.subject.includes("balance is below"));

  /** `count` charges of one credit each (a standard filter), all sent at once. */
  async function chargeAtOnce(service: string, userId: string, count: number, tag: string) {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        consumeRequest(ctx.t, service, {
          user_id: userId,
          feature: "standard-filter",
          people: "one",
          idempotency_key: `${tag}-${i}`,
        }),
      ),
    );
    for (const res of answers) expect(res.status).toBe(200);
  }

  it("is off by default: charges send no mail", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    expect(await (await getJson(ctx.t.app, PATH, ann.accessToken)).json()).toEqual({ threshold: null });
    await chargeAtOnce(await serviceKey(ctx.t), ann.id, 45, "off");
    expect(await alertMails(ann.email)).toEqual([]);
  });

  it("sends exactly one mail when 30 concurrent charges cross the threshold", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const saved = await put(ann.accessToken, { threshold: 40 });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ threshold: 40 });
    expect(await (await getJson(ctx.t.app, PATH, ann.accessToken)).json()).toEqual({ threshold: 40 });

    // 50 free credits: the balance goes 50 → 20; it crosses 40 once, on the eleventh charge.
    await chargeAtOnce(await serviceKey(ctx.t), ann.id, 30, "burst");
    const mails = await alertMails(ann.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe(`Your ${PRODUCT_NAME} balance is below 40 credits`);
    expect(mails[0]?.text).toContain("39 credits are left");
    expect(mails[0]?.links).toContain(`${ctx.t.deps.config.portalUrl}/profile`);
    expect(TEST_FREE_CREDITS).toBe(50);

    // Below the threshold, further charges send nothing more.
    await chargeAtOnce(await serviceKey(ctx.t), ann.id, 5, "below");
    expect(await alertMails(ann.email)).toHaveLength(1);
  });

  it("mails again when the balance has been raised above the threshold and falls below it once more", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const service = await serviceKey(ctx.t);
    expect((await put(ann.accessToken, { threshold: 48 })).status).toBe(200);
    await chargeAtOnce(service, ann.id, 3, "first"); // 50 → 47
    // Moving the threshold under the balance arms the alert again.
    expect((await put(ann.accessToken, { threshold: 45 })).status).toBe(200);
    await chargeAtOnce(service, ann.id, 3, "second"); // 47 → 44
    // The admin's manual form crosses it too.
    const admin = (await staffMember(ctx.t, "boss", "admin")).accessToken;
    expect((await put(ann.accessToken, { threshold: 44 })).status).toBe(200);
    const manual = await consumeRequest(ctx.t, admin, {
      user_id: ann.id,
      amount: 0.5,
      reason: "support",
      idempotency_key: "manual-1",
    });
    expect(manual.status).toBe(200);
    // A repeated charge is not a new crossing.
    expect(
      (
        await consumeRequest(ctx.t, admin, {
          user_id: ann.id,
          amount: 0.5,
          reason: "support",
          idempotency_key: "manual-1",
        })
      ).status,
    ).toBe(200);
    const subjects = (await alertMails(ann.email)).map((m) => m.subject);
    expect(subjects.sort()).toEqual([
      `Your ${PRODUCT_NAME} balance is below 44 credits`,
      `Your ${PRODUCT_NAME} balance is below 45 credits`,
      `Your ${PRODUCT_NAME} balance is below 48 credits`,
    ]);
    // Turned off, nothing more.
    expect(await (await put(admin, { threshold: null })).json()).toEqual({ threshold: null });
    await chargeAtOnce(service, ann.id, 2, "off");
    expect(await alertMails(ann.email)).toHaveLength(3);
  });

  it.each([[0], [-1], [1.5], ["10"], [1_000_001], [undefined]])(
    "refuses the threshold %j with a 422",
    async (threshold) => {
      const ann = await verifiedUser(ctx.t, "ann");
      const res = await put(ann.accessToken, { threshold });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(body.detail[0]?.loc).toEqual(["body", "threshold"]);
      if (threshold !== undefined) expect(body.detail[0]?.msg).toBe(LOW_BALANCE_RULES.threshold);
      expect(await (await getJson(ctx.t.app, PATH, ann.accessToken)).json()).toEqual({ threshold: null });
    },
  );

  it("answers 401 without a valid access token", async () => {
    expect((await getJson(ctx.t.app, PATH)).status).toBe(401);
    expect((await postJson(ctx.t.app, PATH, { threshold: 1 })).status).toBe(404);
    expect((await put("nope", { threshold: 1 })).status).toBe(401);
  });
});
