// An action whose effect lies at the payment provider builds its audit entry first: an entry that
// could not be stored stops the action before the provider is asked (issue 30: a cancel reached
// Stripe, then its entry failed). The API refuses such text at the edge too (staff-safety.test.ts);
// this holds without that check.
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { UnstorableAuditEntry } from "../audit/audit-log.ts";
import { invoices } from "../db/schema/index.ts";
import { staffMember } from "../testing/admin.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { subscribe } from "../testing/billing.ts";
import { useTestApp } from "../testing/suite.ts";
import { accountActions } from "./account-actions.ts";
import type { Actor } from "./actor.ts";
import { refundPayment } from "./refunds.ts";

describe.each(TEST_DATABASES)("provider actions and their audit entries (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it.each(["period_end", "now"] as const)(
    "a cancel (%s) whose entry cannot be stored never reaches billing",
    async (at) => {
      const cora = await verifiedUser(ctx.t, "cora");
      const ada = await staffMember(ctx.t, "ada", "admin");
      const billing = { cancelSubscription: vi.fn(), endSubscriptionNow: vi.fn() };
      const actions = accountActions({
        db: ctx.t.deps.db,
        accounts: { issueLinkMail: vi.fn() },
        billing,
        autoTopUp: { turnOff: vi.fn() },
      });
      const actor: Actor = { id: ada.id, label: "ada", role: "admin", ip: null };
      await expect(
        actions.cancelSubscription(actor, cora.id, at, "Bad \u0000 reason", ctx.t.clock.now()),
      ).rejects.toThrow(UnstorableAuditEntry);
      expect(billing.cancelSubscription).not.toHaveBeenCalled();
      expect(billing.endSubscriptionNow).not.toHaveBeenCalled();
    },
  );

  it("a refund whose entry cannot be stored never reaches the provider", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "A");
    const [invoice] = await ctx.t.deps.db.select().from(invoices).where(eq(invoices.userId, cora.id));
    if (!invoice) throw new Error("no invoice");
    const provider = { refundPayment: vi.fn() };
    const actor: Actor = { id: ada.id, label: "ada", role: "admin", ip: null };
    await expect(
      refundPayment(
        { db: ctx.t.deps.db, provider: provider as never, afterProviderChange: vi.fn() },
        actor,
        invoice.id,
        { reason: "Bad \ud800 reason", idempotencyKey: "k" },
        ctx.t.clock.now(),
      ),
    ).rejects.toThrow(UnstorableAuditEntry);
    expect(provider.refundPayment).not.toHaveBeenCalled();
  });
});
