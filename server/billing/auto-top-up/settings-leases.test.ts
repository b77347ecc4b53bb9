// Saving auto top-up's settings ends the organisation's credit leases (decision 051): a lease was
// sized to keep the unreserved balance above the threshold in force when it was taken, and a higher
// threshold, or auto top-up turned on, must find nothing held above it.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditGrants, creditLeases } from "../../db/schema/index.ts";
import { createKey } from "../../testing/api-access.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { putAutoTopUp, saveCard } from "../../testing/auto-top-up.ts";
import { subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";
import { takeLease } from "../credit-leases.ts";

describe.each(TEST_DATABASES)("auto top-up's settings and credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("ends the organisation's open leases when its settings are saved", async () => {
    const t = ctx.t;
    const ann = await verifiedUser(t, "ann");
    await subscribe(t, ann.accessToken, "A");
    await saveCard(t, ann.id, ann.id);
    const key = await createKey(t, ann.accessToken);
    const [grant] = await t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, ann.id));
    const now = t.clock.now();
    await t.deps.db.transaction((tx) =>
      takeLease(tx, {
        orgId: ann.id,
        apiKeyId: key.id,
        memberId: null,
        month: "2026-11-01",
        amount: 1000,
        takes: [{ grantId: grant?.id as string, amount: 1000 }],
        holder: "test",
        now,
        expiresAt: new Date(now.getTime() + 60_000),
      }),
    );
    await putAutoTopUp(t, ann.accessToken, true);
    const [lease] = await t.deps.db.select().from(creditLeases);
    expect(lease).toMatchObject({ endedBecause: "organization_changed" });
    expect(lease?.endedAt).not.toBeNull();
    expect(
      await t.deps.db
        .select()
        .from(creditGrants)
        .where(eq(creditGrants.id, grant?.id as string)),
    ).toMatchObject([{ reserved: 0 }]);
  });
});
