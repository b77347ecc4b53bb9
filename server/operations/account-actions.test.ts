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

  it("a refund the provider answered failed or canceled leaves the payment to refund again", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, cora.accessToken, "A");
    const [invoice] = await ctx.t.deps.db.select().from(invoices).where(eq(invoices.userId, cora.id));
    if (!invoice) throw new Error("no invoice");
    const answers = ["failed", "canceled", "pending"];
    const provider = {
      refundPayment: vi.fn(async (_db: unknown, _request: { amount: number }) => ({
        refundId: `re_${answers.length}`,
        status: answers.shift() ?? "",
      })),
    };
    const deps = { db: ctx.t.deps.db, provider, afterProviderChange: vi.fn() };
    const actor: Actor = { id: ada.id, label: "ada", role: "admin", ip: null };
    const ask = (idempotencyKey: string) =>
      refundPayment(
        deps,
        actor,
        invoice.id,
        { reason: "Bought by mistake", idempotencyKey },
        ctx.t.clock.now(),
      );
    // Nothing went back twice: the whole payment is asked for again each time.
    expect(await ask("k1")).toMatchObject({ status: "failed" });
    expect(await ask("k2")).toMatchObject({ status: "canceled" });
    expect(await ask("k3")).toMatchObject({ status: "pending" });
    expect(provider.refundPayment.mock.calls.map(([, request]) => request.amount)).toEqual([
      invoice.total,
      invoice.total,
      invoice.total,
    ]);
    // A pending refund is money on its way back: nothing is left to refund until it fails.
    await expect(ask("k4")).rejects.toMatchObject({
      status: 409,
      message: "The payment is already refunded in full",
    });
    expect(provider.refundPayment).toHaveBeenCalledTimes(3);
  });
});
