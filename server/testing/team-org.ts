// Helpers for tests that need a team organisation before its own calls exist in the test: the rows
// the organisation calls write (an organisation, its members, a key it owns) and charges as the
// spends record them (credit_spends and the usage_daily sums), written directly.
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { OrgRole } from "../../contract/org-roles.ts";
import { apiKeys, creditSpends, organizationMembers, organizations, usageDaily } from "../db/schema/index.ts";
import { berlinDateOf } from "../domain/berlin-time.ts";
import { createKey } from "./api-access.ts";
import { verifiedUser } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";

/** A team organisation named `name` with `members` (user id and role), joined now. */
export async function teamOrg(
  t: TestApp,
  name: string,
  members: { id: string; role: OrgRole }[],
): Promise<string> {
  const id = randomUUID();
  const now = t.clock.now();
  await t.deps.db
    .insert(organizations)
    .values({ id, name, createdBy: members[0]?.id ?? null, createdAt: now });
  if (members.length > 0) {
    await t.deps.db
      .insert(organizationMembers)
      .values(members.map((m) => ({ orgId: id, userId: m.id, role: m.role, joinedAt: now })));
  }
  return id;
}

/** An API key of `orgId` made by the member whose token is `accessToken` (shared: an owner's shared key). */
export async function orgKey(
  t: TestApp,
  accessToken: string,
  maker: string,
  orgId: string,
  options: { name?: string; shared?: boolean } = {},
) {
  const key = await createKey(t, accessToken, { name: options.name ?? "Org program" });
  await t.deps.db
    .update(apiKeys)
    .set({ userId: orgId, createdBy: maker, shared: options.shared ?? false })
    .where(eq(apiKeys.id, key.id));
  return key;
}

/** A metered charge of `credits` (milli-credits) to `orgId` at `at`, as a spend records it. */
export async function recordCharge(
  t: TestApp,
  charge: {
    orgId: string;
    keyId: string | null;
    at: string;
    feature: string;
    quantity?: number;
    credits: number;
  },
) {
  const at = new Date(charge.at);
  const quantity = charge.quantity ?? 1;
  await t.deps.db.insert(creditSpends).values({
    id: randomUUID(),
    userId: charge.orgId,
    amount: charge.credits,
    reason: charge.feature,
    idempotencyKey: randomUUID(),
    balanceAfter: 0,
    takes: [],
    apiKeyId: charge.keyId,
    feature: charge.feature,
    people: "one",
    quantity,
    createdAt: at,
  });
  await t.deps.db
    .insert(usageDaily)
    .values({
      userId: charge.orgId,
      day: berlinDateOf(at),
      feature: charge.feature,
      apiKeyId: charge.keyId ?? "",
      uses: quantity,
      credits: charge.credits,
    })
    .onConflictDoUpdate({
      target: [usageDaily.userId, usageDaily.day, usageDaily.feature, usageDaily.apiKeyId],
      set: {
        uses: sql`${usageDaily.uses} + excluded.uses`,
        credits: sql`${usageDaily.credits} + excluded.credits`,
      },
    });
}

/**
 * A team organisation "Studio" of an owner and a developer whose monthly cap is `cap`
 * milli-credits, with an API key the developer made (whose charges count against that cap).
 */
export async function cappedMember(t: TestApp, cap: number) {
  const owner = await verifiedUser(t, "owner");
  const member = await verifiedUser(t, "member");
  const orgId = await teamOrg(t, "Studio", [
    { id: owner.id, role: "owner" },
    { id: member.id, role: "developer" },
  ]);
  await t.deps.db
    .update(organizationMembers)
    .set({ monthlyCreditCap: cap })
    .where(eq(organizationMembers.userId, member.id));
  const key = await orgKey(t, member.accessToken, member.id, orgId);
  return { owner, member, orgId, key };
}
