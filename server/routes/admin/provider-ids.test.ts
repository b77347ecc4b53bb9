// The console shows the payment provider's ids of a customer and of each payment, so that support
// staff find them in Stripe's dashboard: the customer (cus_…), the subscription (sub_…), each
// invoice (in_…) and payment (pi_…). Through the API, on PGlite and PostgreSQL.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Customer } from "../../../contract/admin.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { billingCustomers, checkoutSessions, invoices, subscriptions } from "../../db/schema/index.ts";
import { adminGet, customerPayments, staffMember } from "../../testing/admin.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { openTopUpCheckout, payAndSettle, subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("the console's provider ids (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  it("names the customer's provider customer and subscription, and each payment's invoice and payment", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sam = await staffMember(ctx.t, "sam", "support");
    await subscribe(ctx.t, cora.accessToken, "A");
    const path = await openTopUpCheckout(ctx.t, cora.accessToken, "500");
    await payAndSettle(ctx.t, path);
    const db = ctx.t.deps.db;
    const [customer] = await db.select().from(billingCustomers).where(eq(billingCustomers.userId, cora.id));
    const [subscription] = await db.select().from(subscriptions).where(eq(subscriptions.userId, cora.id));
    const [session] = await db
      .select({ paymentIntentId: checkoutSessions.paymentIntentId })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, path.split("/").pop() ?? ""));
    const stored = await db.select().from(invoices).where(eq(invoices.userId, cora.id));

    const seen = await adminGet<Customer>(ctx.t, `/v1/admin/customers/${cora.id}`, sam.accessToken);
    expect(seen.provider_customer_id).toMatch(/^cus_/);
    expect(seen.provider_customer_id).toBe(customer?.customerId);
    expect(seen.provider_subscription_id).toMatch(/^sub_/);
    expect(seen.provider_subscription_id).toBe(subscription?.providerSubscriptionId);

    const payments = await customerPayments(ctx.t, cora.id, sam.accessToken);
    expect(payments).toHaveLength(2);
    for (const payment of payments) {
      const row = stored.find((r) => r.id === payment.id);
      expect(payment).toMatchObject({
        provider: "local",
        provider_invoice_id: row?.providerInvoiceId,
        payment_reference: row?.paymentReference,
      });
    }
    const plan = payments.find((p) => !p.description.includes("500"));
    const pack = payments.find((p) => p.description.includes("500"));
    expect(plan?.provider_invoice_id).toMatch(/^in_/);
    expect(pack?.payment_reference).toBe(session?.paymentIntentId);
    expect(pack?.payment_reference).toMatch(/^pi_/);

    // The organisation console lists the same payments (a personal organisation's id is its user's)
    // with the same ids, so its Provider ids column is not a row of dashes.
    const org = await adminGet<{ data: typeof payments }>(
      ctx.t,
      `/v1/admin/orgs/${cora.id}/payments`,
      sam.accessToken,
    );
    expect(
      org.data.map(({ id, provider, provider_invoice_id, payment_reference }) => ({
        id,
        provider,
        provider_invoice_id,
        payment_reference,
      })),
    ).toEqual(
      payments.map(({ id, provider, provider_invoice_id, payment_reference }) => ({
        id,
        provider,
        provider_invoice_id,
        payment_reference,
      })),
    );
    expect(org.data.every((p) => p.payment_reference !== undefined)).toBe(true);
  });

  it("answers null for a customer who never paid, and never shows the ids to a customer", async () => {
    const dora = await verifiedUser(ctx.t, "dora");
    const sam = await staffMember(ctx.t, "sam", "support");
    const seen = await adminGet<Customer>(ctx.t, `/v1/admin/customers/${dora.id}`, sam.accessToken);
    expect(seen).toMatchObject({ provider_customer_id: null, provider_subscription_id: null });
    expect(await customerPayments(ctx.t, dora.id, sam.accessToken)).toEqual([]);
    const own = await ctx.t.app.request(`/v1/admin/customers/${dora.id}`, {
      headers: { Authorization: `Bearer ${dora.accessToken}` },
    });
    expect(own.status).toBe(403);
  });
});
