// GET /v1/usage and /v1/usage.csv of a team organisation (ORGANISATIONS.md): X-Organization picks
// it, a developer sees only the charges of the keys they made, and group_by=member sums the
// charges per member who made the key, with the shared keys and the charges without a key apart.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { users } from "../../db/schema/index.ts";
import { bearer } from "../../testing/api-access.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { tokenFor } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { orgKey, recordCharge, teamOrg } from "../../testing/team-org.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";
import { usageRange } from "../../usage/usage-range.ts";
import { usageGroups } from "../../usage/usage-store.ts";

type Usage = {
  from: string;
  to: string;
  data: Record<string, unknown>[];
  total: { uses: number; credits: number };
};

describe.each(TEST_DATABASES)("usage of an organisation (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /**
   * Acme: ann (owner), bob (developer), cat (billing), dan (developer, no keys). Charges on 2 and
   * 3 March: ann's key, bob's key, ann's shared key, and one without a key; and one in ann's
   * personal organisation, which Acme's usage never shows.
   */
  async function acme() {
    ctx.t.clock.set("2026-03-01T10:00:00Z");
    const [ann, bob, cat, dan] = await Promise.all(
      ["ann", "bob", "cat", "dan"].map((name) => verifiedUser(ctx.t, name)),
    );
    if (!ann || !bob || !cat || !dan) throw new Error("no users");
    const org = await teamOrg(ctx.t, "Acme", [
      { id: ann.id, role: "owner" },
      { id: bob.id, role: "developer" },
      { id: cat.id, role: "billing" },
      { id: dan.id, role: "developer" },
    ]);
    const annKey = await orgKey(ctx.t, ann.accessToken, ann.id, org, { name: "Ann's worker" });
    const bobKey = await orgKey(ctx.t, bob.accessToken, bob.id, org, { name: "Bob's worker" });
    const shared = await orgKey(ctx.t, ann.accessToken, ann.id, org, { name: "Render farm", shared: true });
    const charge = (keyId: string | null, at: string, credits: number, quantity = 1) =>
      recordCharge(ctx.t, { orgId: org, keyId, at, feature: "comic", credits, quantity });
    await charge(annKey.id, "2026-03-02T09:00:00Z", 5000);
    await charge(bobKey.id, "2026-03-02T10:00:00Z", 10_000, 2);
    await charge(bobKey.id, "2026-03-03T10:00:00Z", 5000);
    await charge(shared.id, "2026-03-03T11:00:00Z", 500, 5);
    await charge(null, "2026-03-03T12:00:00Z", 1500);
    await recordCharge(ctx.t, {
      orgId: ann.id,
      keyId: null,
      at: "2026-03-02T09:00:00Z",
      feature: "comic",
      credits: 7000,
    });
    ctx.t.clock.set("2026-03-04T12:00:00Z");
    // Tokens of today: those of the setup have expired.
    const fresh = async (user: typeof ann) => ({
      ...user,
      accessToken: await tokenFor(ctx.t, user.username),
    });
    return {
      org,
      ann: await fresh(ann),
      bob: await fresh(bob),
      cat: await fresh(cat),
      dan: await fresh(dan),
      annKey,
      bobKey,
      shared,
    };
  }

  function get(path: string, token: string, org?: string) {
    return ctx.t.app.request(path, {
      headers: { ...bearer(token), ...(org ? { "X-Organization": org } : {}) },
    });
  }

  async function usage(query: string, token: string, org?: string): Promise<Usage> {
    const res = await get(`/v1/usage?from=2026-03-01&to=2026-03-04&${query}`, token, org);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Usage;
  }

  it("groups by the member who made the key, with shared keys and charges without a key apart", async () => {
    const { org, ann, bob } = await acme();
    const byMember = await usage("group_by=member", ann.accessToken, org);
    expect(byMember.data).toEqual([
      { member_group: "member", member_id: ann.id, member_username: "ann", uses: 1, credits: 5 },
      { member_group: "member", member_id: bob.id, member_username: "bob", uses: 3, credits: 15 },
      { member_group: "shared_keys", member_id: null, member_username: null, uses: 5, credits: 0.5 },
      { member_group: "without_key", member_id: null, member_username: null, uses: 1, credits: 1.5 },
    ]);
    expect(byMember.total).toEqual({ uses: 10, credits: 22 });

    const perDay = await usage("group_by=day,member", ann.accessToken, org);
    expect(perDay.data).toEqual([
      {
        date: "2026-03-02",
        member_group: "member",
        member_id: ann.id,
        member_username: "ann",
        uses: 1,
        credits: 5,
      },
      {
        date: "2026-03-02",
        member_group: "member",
        member_id: bob.id,
        member_username: "bob",
        uses: 2,
        credits: 10,
      },
      {
        date: "2026-03-03",
        member_group: "member",
        member_id: bob.id,
        member_username: "bob",
        uses: 1,
        credits: 5,
      },
      {
        date: "2026-03-03",
        member_group: "shared_keys",
        member_id: null,
        member_username: null,
        uses: 5,
        credits: 0.5,
      },
      {
        date: "2026-03-03",
        member_group: "without_key",
        member_id: null,
        member_username: null,
        uses: 1,
        credits: 1.5,
      },
    ]);
  });

  it("answers the personal organisation without the header, and a billing member sees everyone's", async () => {
    const { org, ann, cat } = await acme();
    expect((await usage("", ann.accessToken)).total).toEqual({ uses: 1, credits: 7 });
    expect((await usage("group_by=member", cat.accessToken, org)).total).toEqual({ uses: 10, credits: 22 });
  });

  it("shows a developer only the charges of the keys they made, in the JSON and the CSV", async () => {
    const { org, bob, dan, bobKey } = await acme();
    const own = await usage("group_by=api_key,member", bob.accessToken, org);
    expect(own.data).toEqual([
      {
        api_key_id: bobKey.id,
        api_key_name: "Bob's worker",
        api_key_prefix: bobKey.prefix,
        member_group: "member",
        member_id: bob.id,
        member_username: "bob",
        uses: 3,
        credits: 15,
      },
    ]);
    expect((await usage("", dan.accessToken, org)).data).toEqual([]);
    const csv = await get("/v1/usage.csv?from=2026-03-01&to=2026-03-04", bob.accessToken, org);
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key,member");
    expect(lines.slice(1).map((line) => [line.split(",")[4], line.split(",").at(-1)])).toEqual([
      ["10", "bob"],
      ["5", "bob"],
    ]);
  });

  it("names each charge's member in a team organisation's CSV", async () => {
    const { org, ann } = await acme();
    const res = await get("/v1/usage.csv?from=2026-03-01&to=2026-03-04", ann.accessToken, org);
    const lines = (await res.text()).trim().split("\n");
    expect(lines.slice(1).map((line) => line.split(",").at(-1))).toEqual([
      "ann",
      "bob",
      "bob",
      "Shared keys",
      "Without a key",
    ]);
    // The personal organisation's CSV keeps its columns.
    const personal = await get("/v1/usage.csv?from=2026-03-01&to=2026-03-04", ann.accessToken);
    expect((await personal.text()).split("\n")[0]).toBe(
      "time,feature,people,quantity,credits,key_name,key_prefix,idempotency_key",
    );
  });

  it("answers 404 for an organisation the caller is not a member of, or a malformed id", async () => {
    const { org } = await acme();
    const eve = await verifiedUser(ctx.t, "eve");
    for (const header of [org, "not-an-id"]) {
      for (const path of ["/v1/usage", "/v1/usage.csv"]) {
        const res = await get(path, eve.accessToken, header);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ detail: "Organisation not found" });
      }
    }
  });

  it("usageGroups counts a key whose maker's account is gone for no named member", async () => {
    const { org, bob } = await acme();
    // A key row made by a rolling deploy's old instance has no maker: it counts for its organisation's user.
    await ctx.database.db.update(users).set({ username: "robert" }).where(eq(users.id, bob.id));
    const range = usageRange({ from: "2026-03-02", to: "2026-03-03" }, ctx.t.clock.now());
    if ("field" in range) throw new Error("range refused");
    const groups = await usageGroups(ctx.database.db, { orgId: org }, range, ["member"]);
    expect(groups.map((g) => [g.memberGroup, g.memberUsername, g.credits])).toEqual([
      ["member", "ann", 5000],
      ["member", "robert", 15_000],
      ["shared_keys", null, 500],
      ["without_key", null, 1500],
    ]);
    const bobs = await usageGroups(ctx.database.db, { orgId: org, madeBy: bob.id }, range, ["feature"]);
    expect(bobs).toEqual([{ feature: "comic", uses: 3, credits: 15_000 }]);
  });
});
