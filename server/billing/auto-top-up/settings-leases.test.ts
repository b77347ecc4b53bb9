// Saving auto top-up's settings ends the organisation's credit leases (decision 051): a lease was
// sized to keep the unreserved balance above the threshold in force when it was taken, and a higher
// threshold, or auto top-up turned on, must find nothing held above it. So does the system making
// it active again: a lease taken while it was not would not ask for a top-up.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { creditGrants, creditLeases } from "../../db/schema/index.ts";
import { createKey } from "../../testing/api-access.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { putAutoTopUp, saveCard, turnOn } from "../../testing/auto-top-up.ts";
import { subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, type TestApp } from "../../testing/test-app.ts";
import { takeLease } from "../credit-leases.ts";
import { changeStatus, SYSTEM_ACTOR } from "./status.ts";

describe.each(TEST_DATABASES)("auto top-up's settings and credit leases (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** Ann on tier A with a saved card and a key, and a lease of one credit on that key. */
  async function annWithLease(t: TestApp) {
    const ann = await verifiedUser(t, "ann");
    await subscribe(t, ann.accessToken, "A");
    const card = await saveCard(t, ann.id, ann.id);
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
    return { ann, card, grant };
  }

  it("ends the organisation's open leases when the system makes it active again, not when it pauses it", async () => {
    const t = ctx.t;
    const { ann, card } = await annWithLease(t);
    await turnOn(t, ann.id, card.paymentMethodId);
    const change = (status: { status: "active" } | { status: "paused"; reason: "monthly_limit" }) =>
      t.deps.db.transaction((tx) =>
        changeStatus(tx, ann.id, status, { actor: SYSTEM_ACTOR, billingUrl: "" }, t.clock.now()),
      );
    // A pause keeps the lease: a charge through it asks for a top-up, which the pause refuses.
    expect(await change({ status: "paused", reason: "monthly_limit" })).toBe(true);
    expect((await t.deps.db.select().from(creditLeases))[0]).toMatchObject({ endedAt: null });
    // Active again: a lease taken while paused would not ask for a top-up.
    expect(await change({ status: "active" })).toBe(true);
    expect((await t.deps.db.select().from(creditLeases))[0]).toMatchObject({
      endedAt: expect.any(Date),
      endedBecause: "organization_changed",
    });
  });

  it("ends the organisation's open leases when its settings are saved", async () => {
    const t = ctx.t;
    const { ann, grant } = await annWithLease(t);
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
