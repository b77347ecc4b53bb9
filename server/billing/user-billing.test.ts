import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { findUserById } from "../accounts/users.ts";
import { creditGrants, organizations } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import { newGrant } from "../domain/ledger.ts";
import { FREE, type PaidState } from "../domain/subscription.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { insertGrant, userGrants } from "./ledger-store.ts";
import { loadState, saveState } from "./subscription-store.ts";
import { findUserWithBilling } from "./user-billing.ts";

/** What findUserWithBilling reads of the users row: the answer's fields and the token version. */
async function accountOf(db: Db, id: string) {
  const row = await findUserById(db, id);
  if (!row) return undefined;
  const { username, email, role, emailVerified, tokenVersion, disabledAt } = row;
  return { id: row.id, username, email, role, emailVerified, tokenVersion, disabledAt };
}

describe.each(TEST_DATABASES)("findUserWithBilling (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const db = () => ctx.t.deps.db;
  const origin = { paymentReference: null, eventId: null };

  it("reads what findUserById, userGrants and loadState read, in one statement", async () => {
    const { id } = await verifiedUser(ctx.t, "ann");
    const now = ctx.t.clock.now();
    const day = 86_400_000;
    await insertGrant(
      db(),
      id,
      newGrant("topup", 500_000, new Date(now.getTime() - day), "top-up", "k1"),
      origin,
    );
    await insertGrant(
      db(),
      id,
      newGrant("topup", 250_000, new Date(now.getTime() + day), "top-up", "k2"),
      origin,
    );
    const paid: PaidState = {
      status: "active",
      subscriptionId: "sub_1",
      productId: "prod_test_tier_b",
      currentPeriodStart: new Date(now.getTime() - day),
      currentPeriodEnd: new Date(now.getTime() + 29 * day),
      periodIsEstimate: false,
      cancelAtPeriodEnd: true,
      scheduledProductId: null,
    };
    await saveState(db(), id, FREE, paid, now, "cus_1");

    const found = await findUserWithBilling(db(), id);
    expect(found).toEqual({
      user: await accountOf(db(), id),
      grants: await userGrants(db(), id),
      subscription: await loadState(db(), id),
      disputeHold: false,
    });
    // Newest first: tomorrow's top-up, today's free credits, yesterday's top-up.
    expect(found?.grants.map((g) => g.kind)).toEqual(["topup", "free", "topup"]);
    expect(found?.subscription).toEqual(paid);
    expect(found?.user).not.toHaveProperty("passwordHash");
  });

  it("reads a user without grants or subscription as FREE with no grants", async () => {
    const { id } = await verifiedUser(ctx.t, "ann");
    await db().delete(creditGrants).where(eq(creditGrants.userId, id));
    expect(await findUserWithBilling(db(), id)).toEqual({
      user: await accountOf(db(), id),
      grants: [],
      subscription: FREE,
      disputeHold: false,
    });
  });

  it("reads the personal organisation's dispute hold in the same statement", async () => {
    const { id } = await verifiedUser(ctx.t, "ann");
    await db()
      .update(organizations)
      .set({ disputeHoldAt: ctx.t.clock.now() })
      .where(eq(organizations.id, id));
    const found = await findUserWithBilling(db(), id);
    expect(found?.disputeHold).toBe(true);
    // One row per grant still: the join adds no rows.
    expect(found?.grants).toEqual(await userGrants(db(), id));
  });

  it("finds nobody for an unknown id or one that is not a UUID (no database error)", async () => {
    expect(await findUserWithBilling(db(), "00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(await findUserWithBilling(db(), "not-a-uuid")).toBeUndefined();
  });
});
