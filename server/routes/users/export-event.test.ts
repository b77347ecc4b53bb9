// Downloading one's data is a security event (issue 30): the owner sees on /profile/security when
// their data left, and from where.
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { auditRowsAbout } from "../../testing/admin.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";

describe.each(TEST_DATABASES)("the data export's security event (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("is recorded with the address and browser, and listed for the owner", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const exported = await ctx.t.app.request("/v1/users/me/export", {
      headers: {
        Authorization: `Bearer ${ann.accessToken}`,
        "X-Forwarded-For": "203.0.113.9",
        "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
      },
    });
    expect(exported.status).toBe(200);
    await exported.text();
    const rows = (await auditRowsAbout(ctx.t, ann.id)).filter((r) => r.action === "account.export");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actorId: ann.id, actorLabel: "ann", subjectUserId: ann.id });
    const events = await getJson(ctx.t.app, "/v1/users/me/security-events", ann.accessToken);
    const [latest] = ((await events.json()) as { data: { action: string; browser: string | null }[] }).data;
    expect(latest).toMatchObject({ action: "account.export", browser: expect.stringContaining("Chrome") });
  });
});

describe.each(TEST_DATABASES)("the data export under the write limit (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: { accountWritePerMinute: 2 } });

  it("counts each export as a signed-in write: a loop gets 429 and the log no more entries", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await getJson(ctx.t.app, "/v1/users/me/export", ann.accessToken);
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect((await auditRowsAbout(ctx.t, ann.id)).filter((r) => r.action === "account.export")).toHaveLength(
      2,
    );
  });
});
