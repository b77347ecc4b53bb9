import { OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { FREE_SUBSCRIPTION } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { setUserRole } from "../../accounts/users.ts";
import { createAccessTokens } from "../../auth/access-tokens.ts";
import { creditAdjustments, creditGrants, invoices, organizations, users } from "../../db/schema/index.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { requireRole, requireUser } from "../../http/auth-guard.ts";
import { errorHandler } from "../../http/errors.ts";
import { bearer } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { createTeam, member } from "../../testing/org-calls.ts";
import { newSigningKeys } from "../../testing/signing-keys.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_FREE_CREDITS, TEST_JWT } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("GET /v1/users/me (%s)", (kind) => {
  const ctx = useTestApp(kind);

  async function expectUnauthorized(res: Response) {
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual({ detail: DETAIL.couldNotValidateCredentials });
  }

  it("returns the user: FREE plan and the free initial credits", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const res = await getJson(ctx.t.app, "/v1/users/me", user.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      id: user.id,
      username: "ann",
      email: "ann@example.com",
      role: "user",
      email_verified: true,
      credit_balance: TEST_FREE_CREDITS,
      subscription: FREE_SUBSCRIPTION,
      organization: { id: user.id, name: null, personal: true, role: "owner" },
      dispute_hold: false,
    });
  });

  // ACCOUNT-SECURITY.md and ORGANISATIONS.md: a lost dispute puts the organisation that paid on
  // hold, and its keys are refused 402; the answer says so for the organisation it acts on.
  it("says whether the organisation it answers for is on a dispute hold", async () => {
    const hold = (orgId: string, at: Date | null) =>
      ctx.t.deps.db.update(organizations).set({ disputeHoldAt: at }).where(eq(organizations.id, orgId));
    const me = async (token: string, org?: string) => {
      const res = await ctx.t.app.request("/v1/users/me", {
        headers: { ...bearer(token), ...(org ? { "X-Organization": org } : {}) },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { dispute_hold?: boolean; organization?: { id: string } };
    };
    const ann = await verifiedUser(ctx.t, "ann");
    const team = await createTeam(ctx.t, ann);
    const bob = await member(ctx.t, team, ann, "bob", "developer");

    await hold(ann.id, ctx.t.clock.now());
    expect((await me(ann.accessToken)).dispute_hold).toBe(true);
    // The team is not held: its answer, chosen with X-Organization, says so.
    expect(await me(ann.accessToken, team.id)).toMatchObject({
      organization: { id: team.id },
      dispute_hold: false,
    });

    await hold(ann.id, null);
    await hold(team.id, ctx.t.clock.now());
    expect((await me(ann.accessToken)).dispute_hold).toBe(false);
    expect(await me(ann.accessToken, team.id)).toMatchObject({
      organization: { id: team.id },
      dispute_hold: true,
    });
    // Every member sees the team's hold; bob's own organisation is not held.
    expect((await me(bob.accessToken, team.id)).dispute_hold).toBe(true);
    expect((await me(bob.accessToken)).dispute_hold).toBe(false);
  });

  // The portal's hold alert names the disputed payment's invoice (for those who can open it).
  it("names the invoice whose lost dispute placed the present hold, to owners and billing members", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const team = await createTeam(ctx.t, ann);
    const bob = await member(ctx.t, team, ann, "bob", "developer");
    const cat = await member(ctx.t, team, ann, "cat", "billing");
    const { db } = ctx.t.deps;
    const start = ctx.t.clock.now().getTime();
    /** A pack of the team's, paid and then lost in a dispute `minutes` from now: its invoice's id. */
    const lostPack = async (n: number, minutes: number) => {
      const at = new Date(start + minutes * 60_000);
      const [id, grantId] = [crypto.randomUUID(), crypto.randomUUID()];
      const fulfilmentKey = `topup:cs_${n}`;
      await db.insert(creditGrants).values({
        id: grantId,
        userId: team.id,
        kind: "topup",
        amount: 500_000,
        remaining: 0,
        grantedAt: at,
        source: "500 credit pack",
        fulfilmentKey,
      });
      const party = { name: null, country: "DE", vatId: null };
      await db.insert(invoices).values({
        id,
        userId: team.id,
        fulfilmentKey,
        provider: "local",
        kind: "topup",
        status: "refunded",
        number: `INV-2026-00000${n}`,
        issuedAt: at,
        description: "500 credit pack",
        currency: "eur",
        net: 5000,
        tax: 950,
        total: 5950,
        refunded: 5950,
        seller: party,
        buyer: party,
        createdAt: at,
        updatedAt: at,
      });
      await db.insert(creditAdjustments).values({
        id: crypto.randomUUID(),
        userId: team.id,
        grantId,
        kind: "dispute_lost",
        amount: 100_000,
        reference: `dispute:du_${n}:closed`,
        createdAt: at,
      });
      return { id, at };
    };
    const me = async (token: string) => {
      const res = await ctx.t.app.request("/v1/users/me", {
        headers: { ...bearer(token), "X-Organization": team.id },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { dispute_hold?: boolean; dispute_hold_invoice?: unknown };
    };
    await lostPack(1, 1); // an earlier hold's, cleared since
    const placed = await lostPack(2, 2);
    await lostPack(3, 3); // lost while the hold lasts: it placed none
    expect((await me(ann.accessToken)).dispute_hold_invoice).toBeUndefined();
    await db.update(organizations).set({ disputeHoldAt: placed.at }).where(eq(organizations.id, team.id));

    const named = { id: placed.id, number: "INV-2026-000002", invoice_url: null };
    expect(await me(ann.accessToken)).toMatchObject({ dispute_hold: true, dispute_hold_invoice: named });
    expect((await me(cat.accessToken)).dispute_hold_invoice).toEqual(named);
    // A developer cannot open the team's invoices: the hold, without them.
    const developer = await me(bob.accessToken);
    expect(developer.dispute_hold).toBe(true);
    expect(developer).not.toHaveProperty("dispute_hold_invoice");
  });

  it("accepts the scheme in any case", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const res = await ctx.t.app.request("/v1/users/me", {
      headers: { Authorization: `bearer ${user.accessToken}` },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ["no Authorization header", undefined],
    ["a Basic header", "Basic YW5uOkFiY2RlZjEh"],
    ["an empty bearer", "Bearer "],
    ["garbage", "Bearer abc.def.ghi"],
  ])("401 with %s", async (_label, header) => {
    const res = await ctx.t.app.request("/v1/users/me", { headers: header ? { Authorization: header } : {} });
    await expectUnauthorized(res);
  });

  it("401 for an expired token", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    ctx.t.clock.advance(86_400_000 + 1000);
    await expectUnauthorized(await getJson(ctx.t.app, "/v1/users/me", user.accessToken));
  });

  it("401 for a token signed with another key", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const forged = await createAccessTokens({ ...TEST_JWT, keys: await newSigningKeys() }, ctx.t.clock).issue(
      {
        id: user.id,
        username: "ann",
        role: "admin",
        tokenVersion: 0,
      },
    );
    await expectUnauthorized(await getJson(ctx.t.app, "/v1/users/me", forged.token));
  });

  it("401 for alg=none", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const [, payload] = user.accessToken.split(".");
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    await expectUnauthorized(await getJson(ctx.t.app, "/v1/users/me", `${header}.${payload}.`));
  });

  it("401 once the account is gone", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await ctx.database.db.delete(users).where(eq(users.id, user.id));
    await expectUnauthorized(await getJson(ctx.t.app, "/v1/users/me", user.accessToken));
  });

  it("401 for a well-signed token whose sub is not a user id", async () => {
    const now = Math.floor(ctx.t.clock.now().getTime() / 1000);
    const token = await new SignJWT({ username: "x", role: "admin", ver: 0 })
      .setProtectedHeader({ alg: TEST_JWT.keys.current.alg, kid: TEST_JWT.keys.current.kid })
      .setSubject("1 or 1=1")
      .setIssuer(TEST_JWT.issuer)
      .setAudience(TEST_JWT.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(TEST_JWT.keys.current.privateKey);
    await expectUnauthorized(await getJson(ctx.t.app, "/v1/users/me", token));
  });

  it("shows the role from the database, not from the token", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    await setUserRole(ctx.database.db, "ANN", "admin", ctx.t.clock.now());
    const res = await getJson(ctx.t.app, "/v1/users/me", user.accessToken);
    expect(((await res.json()) as { role: string }).role).toBe("admin");
  });

  describe("role checks", () => {
    function guardedApp() {
      const app = new OpenAPIHono<AppEnv>();
      app.onError(errorHandler(ctx.t.deps.logger));
      const guard = requireUser({ db: ctx.database.db, accessTokens: ctx.t.deps.accessTokens });
      app.get("/admin-only", guard, requireRole("admin"), (c) => c.json({ ok: c.var.user.username }));
      return app;
    }

    it("403 'Not enough permissions' for a user, 200 for an admin, 401 for nobody", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const app = guardedApp();
      const asUser = await getJson(app, "/admin-only", user.accessToken);
      expect(asUser.status).toBe(403);
      expect(await asUser.json()).toEqual({ detail: DETAIL.notEnoughPermissions });

      await setUserRole(ctx.database.db, "ann", "admin", ctx.t.clock.now());
      const asAdmin = await getJson(app, "/admin-only", user.accessToken);
      expect(asAdmin.status).toBe(200);
      expect(await asAdmin.json()).toEqual({ ok: "ann" });

      expect((await getJson(app, "/admin-only")).status).toBe(401);
    });

    it("a demoted admin loses access at once, with the same token", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      await setUserRole(ctx.database.db, "ann", "admin", ctx.t.clock.now());
      const app = guardedApp();
      expect((await getJson(app, "/admin-only", user.accessToken)).status).toBe(200);
      await setUserRole(ctx.database.db, "ann", "user", ctx.t.clock.now());
      expect((await getJson(app, "/admin-only", user.accessToken)).status).toBe(403);
    });
  });
});
