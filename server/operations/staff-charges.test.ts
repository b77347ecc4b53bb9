// A staff charge (POST /v1/credits/consume with an admin's token) refused only because credit leases
// hold the credits it needs ends those leases and is decided again (decision 051), as the lease
// holder's own charges are.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { endLeases, takeLease } from "../billing/credit-leases.ts";
import { creditGrants, creditLeases } from "../db/schema/index.ts";
import { toMillicredits } from "../domain/ledger.ts";
import { staffMember } from "../testing/admin.ts";
import { createKey } from "../testing/api-access.ts";
import { postJson, verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { TEST_FREE_CREDITS } from "../testing/test-app.ts";

const FREE = toMillicredits(TEST_FREE_CREDITS);

describe.each(TEST_DATABASES)("staff charges and credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: { accountWritePerMinute: 1_000 } });
  const db = () => ctx.t.deps.db;

  it("ends the leases that hold the credits a staff charge needs, and charges", async () => {
    const adminToken = (await staffMember(ctx.t, "boss", "admin")).accessToken;
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken);
    const [grant] = await db().select().from(creditGrants).where(eq(creditGrants.userId, ann.id));
    const now = ctx.t.clock.now();
    const held = FREE - 1000;
    await db().transaction((tx) =>
      takeLease(tx, {
        orgId: ann.id,
        apiKeyId: key.id,
        memberId: null,
        month: "2026-11-01",
        amount: held,
        takes: [{ grantId: grant?.id as string, amount: held }],
        holder: "test",
        now,
        expiresAt: new Date(now.getTime() + 60_000),
      }),
    );
    const res = await postJson(
      ctx.t.app,
      "/v1/credits/consume",
      { user_id: ann.id, amount: TEST_FREE_CREDITS, reason: "goodwill reversal", idempotency_key: "all" },
      { Authorization: `Bearer ${adminToken}` },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      credit_balance: 0,
      charged: TEST_FREE_CREDITS,
      replayed: false,
    });
    const [lease] = await db().select().from(creditLeases);
    expect(lease?.endedAt).not.toBeNull();
    expect(await db().select().from(creditGrants).where(eq(creditGrants.userId, ann.id))).toMatchObject([
      { remaining: 0, reserved: 0 },
    ]);
    // Nothing left to end: a second ending finds no open lease.
    expect(await db().transaction((tx) => endLeases(tx, { orgId: ann.id }, "released"))).toBe(0);
  });
});
