// GET /v1/orgs/{id}/activity: the organisation's events, newest first and paged, per role, with
// an address only on the caller's own events.
import { describe, expect, it } from "vitest";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { appendAudit } from "../../audit/audit-log.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { call, createTeam, json, member } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

type Activity = {
  data: { action: string; actor: { id: string | null; label: string }; ip: string | null }[];
  next_cursor: string | null;
};

describe.each(TEST_DATABASES)("organisation activity (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const activity = async (token: string, orgId: string, cursor?: string) =>
    json<Activity>(
      await call(ctx.t, "GET", `/v1/orgs/${orgId}/activity${cursor ? `?cursor=${cursor}` : ""}`, token),
      200,
    );

  it("shows owners and managers every event, newest first, with only their own addresses", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const max = await member(ctx.t, org, ann, "max", "manager");
    await call(ctx.t, "PATCH", `/v1/orgs/${org.id}`, max.accessToken, { name: "Acme GmbH" });
    const asAnn = await activity(ann.accessToken, org.id);
    expect(asAnn.data.map((e) => [e.action, e.actor.label])).toEqual([
      ["org.rename", "max"],
      ["member.join", "max"],
      ["member.invite", "ann"],
      ["org.create", "ann"],
    ]);
    expect(asAnn.data.map((e) => e.ip !== null)).toEqual([false, false, true, true]);
    const asMax = await activity(max.accessToken, org.id);
    expect(asMax.data.map((e) => e.ip !== null)).toEqual([true, true, false, false]);
    expect(asMax.next_cursor).toBeNull();
  });

  it("shows billing members only the billing and auto top-up events, and developers nothing", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const bill = await member(ctx.t, org, ann, "bill", "billing");
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    await ctx.t.deps.db.transaction(async (tx) => {
      for (const action of ["billing_details.change", "auto_top_up.enable", "subscription.cancel"]) {
        await appendAudit(
          tx,
          {
            actorId: ann.id,
            actorLabel: "ann",
            action,
            subjectUserId: null,
            subjectOrgId: org.id,
            reason: null,
            details: {},
            ip: "10.0.0.1",
          },
          ctx.t.clock.now(),
        );
      }
    });
    const asBill = await activity(bill.accessToken, org.id);
    expect(asBill.data.map((e) => e.action)).toEqual([
      "subscription.cancel",
      "auto_top_up.enable",
      "billing_details.change",
    ]);
    expect(asBill.data.every((e) => e.ip === null)).toBe(true);
    const refused = await call(ctx.t, "GET", `/v1/orgs/${org.id}/activity`, dev.accessToken);
    expect(await json(refused, 403)).toEqual({ detail: ORG_DETAIL.notAllowed });
  });

  it("pages by 50 with a cursor, and refuses a cursor that is not one", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    for (let i = 0; i < 60; i++) {
      await call(ctx.t, "PATCH", `/v1/orgs/${org.id}`, ann.accessToken, { name: `Acme ${i}` });
    }
    const first = await activity(ann.accessToken, org.id);
    expect(first.data).toHaveLength(50);
    expect(first.next_cursor).toMatch(/^\d+$/);
    const second = await activity(ann.accessToken, org.id, first.next_cursor ?? "");
    expect(second.data).toHaveLength(11);
    expect(second.data.at(-1)?.action).toBe("org.create");
    expect(second.next_cursor).toBeNull();
    const bad = await call(ctx.t, "GET", `/v1/orgs/${org.id}/activity?cursor=abc`, ann.accessToken);
    expect(bad.status).toBe(422);
  });
});
