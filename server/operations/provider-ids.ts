// The payment provider's ids of a customer and of each of their payments, for the console
// (OPERATIONS.md): support staff paste them into Stripe's dashboard search to find the customer
// (cus_…), the subscription (sub_…), an invoice (in_…) or the payment (pi_…; cs_… when only the
// checkout session is known). Read-only: nothing here is ever sent back to the provider.
import { desc, eq } from "drizzle-orm";
import { billingCustomers, invoices, subscriptions } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { customerPayments } from "./customer-views.ts";

export interface CustomerProviderIds {
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
}

export interface PaymentProviderIds {
  provider: "local" | "stripe";
  provider_invoice_id: string | null;
  payment_reference: string | null;
}

/**
 * The customer's provider customer (of their personal organisation, whose money is theirs) and
 * their latest subscription: the live one when there is one, else the one that ended last.
 */
export async function customerProviderIds(db: DbOrTx, id: string): Promise<CustomerProviderIds> {
  const [[customer], [subscription]] = await Promise.all([
    db
      .select({ customerId: billingCustomers.customerId })
      .from(billingCustomers)
      .where(eq(billingCustomers.userId, id)),
    db
      .select({ id: subscriptions.providerSubscriptionId, customerId: subscriptions.customerId })
      .from(subscriptions)
      .where(eq(subscriptions.userId, id))
      .orderBy(desc(subscriptions.createdAt))
      .limit(1),
  ]);
  return {
    provider_customer_id: customer?.customerId ?? subscription?.customerId ?? null,
    provider_subscription_id: subscription?.id ?? null,
  };
}

/** Each of the customer's payments' provider ids, by payment (invoice) id. */
export async function paymentProviderIds(db: DbOrTx, id: string): Promise<Map<string, PaymentProviderIds>> {
  const rows = await db
    .select({
      id: invoices.id,
      provider: invoices.provider,
      providerInvoiceId: invoices.providerInvoiceId,
      paymentReference: invoices.paymentReference,
    })
    .from(invoices)
    .where(eq(invoices.userId, id));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        provider: r.provider,
        provider_invoice_id: r.providerInvoiceId,
        payment_reference: r.paymentReference,
      },
    ]),
  );
}

/**
 * An account's payments as the console lists them (a customer's or a team organisation's, whose
 * payments are kept under its id), each with its provider ids.
 */
export async function paymentsWithProviderIds(db: DbOrTx, id: string) {
  const [payments, providerIds] = await Promise.all([customerPayments(db, id), paymentProviderIds(db, id)]);
  return payments.map((p) => ({ ...p, ...providerIds.get(p.id) }));
}
