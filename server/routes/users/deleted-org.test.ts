// GET /v1/users/me with X-Organization naming an organisation the caller lost: the personal
// organisation's answer, and `chosen_organization_deleted` only for a member the deletion removed
// (ORGANISATIONS.md, "Pages": the portal says why the choice went).
import { describe, expect, it } from "vitest";
import type { User } from "../../../contract/account.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { bearer } from "../../testing/api-access.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { call, createTeam, json, member, type Person } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("GET /v1/users/me for a lost organisation (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const me = async (who: Person, orgId: string) =>
    json<User>(
      await ctx.t.app.request("/v1/users/me", {
        headers: { ...bearer(who.accessToken), "X-Organization": orgId },
      }),
      200,
    );

  it("says the organisation was deleted to its members at the deletion, and to nobody else", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    const eve = await member(ctx.t, org, ann, "eve", "developer");
    const bob = await verifiedUser(ctx.t, "bob");
    expect((await me(dev, org.id)).chosen_organization_deleted).toBeUndefined();
    // Eve is removed before the deletion: she is just no longer a member.
    expect(
      (await call(ctx.t, "DELETE", `/v1/orgs/${org.id}/members/${eve.id}`, ann.accessToken)).status,
    ).toBe(200);
    const deleted = await call(ctx.t, "DELETE", `/v1/orgs/${org.id}`, ann.accessToken, {
      confirm_forfeit: true,
    });
    expect(deleted.status).toBe(204);
    for (const who of [ann, dev]) {
      const answer = await me(who, org.id);
      expect(answer.organization).toMatchObject({ id: who.id, personal: true });
      expect(answer.chosen_organization_deleted).toBe(true);
    }
    for (const who of [eve, bob]) {
      const answer = await me(who, org.id);
      expect(answer.organization).toMatchObject({ id: who.id, personal: true });
      expect(answer).not.toHaveProperty("chosen_organization_deleted");
    }
  });
});
