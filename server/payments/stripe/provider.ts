// The Stripe adapter (selected when STRIPE_SECRET_KEY is set): hosted Checkout Sessions in
// subscription and payment mode for the user's reused Customer, plan changes as subscription
// schedules that switch the price at the period end, cancel at period end, and the catalogue's ids
// read from the Stripe account. Fulfilment never happens here: it comes back as webhook events.
// Auto top-up's calls (setup pages, saved cards, one-off invoices) are in auto-top-up-calls.ts.
import { createHash } from "node:crypto";
import { and, eq, gt, type SQL } from "drizzle-orm";
import type Stripe from "stripe";
import { TIERS, TOP_UPS } from "../../../contract/catalogue.ts";
import {
  type IdSet,
  TIER_KEYS,
  type TierKey,
  TOP_UP_KEYS,
  type TopUpKey,
} from "../../../contract/product-ids.ts";
import { vatIdStatusOf } from "../../../contract/vat-id-verification.ts";
import type {
  CreatedCheckout,
  CustomerStore,
  NewCheckout,
  PaymentProvider,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import { checkoutSessions } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import { createAutoTopUpCalls, expireSession } from "./auto-top-up-calls.ts";
import { parseStripeSubscription } from "./customer-events.ts";
import { checkoutSessionMetadata, METADATA, payerOf, subscriptionMetadata } from "./format.ts";
import { stripeWebhookReader } from "./webhook-reader.ts";

/** Product metadata that says which tier or pack a Stripe product is: `tier: "A"` or `top_up: "500"`. */
export const PRODUCT_METADATA = { tier: "tier", topUp: "top_up" } as const;

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "resource_missing";

export function createStripeProvider(deps: {
  stripe: Stripe;
  clock: Clock;
  /** The webhook endpoint's signing secret (STRIPE_WEBHOOK_SECRET). */
  webhookSecret: string;
  customers: CustomerStore;
}): PaymentProvider {
  const { stripe, customers } = deps;

  /**
   * The organisation's customer, made at its first checkout with its billing e-mail (never the
   * clicking member's); a personal organisation keeps its user's existing customer.
   */
  async function customerFor(db: DbOrTx, orgId: string, email: string): Promise<string> {
    const known = await customers.findCustomerId(db, orgId);
    if (known) return known;
    const customer = await stripe.customers.create(
      { email, metadata: { [METADATA.userId]: orgId, [METADATA.orgId]: orgId } },
      // Two checkouts racing for a new organisation make one customer (the key predates
      // organisations: a personal organisation's id is its user's).
      { idempotencyKey: `customer-for-user-${orgId}` },
    );
    return customers.saveCustomerId(db, orgId, customer.id);
  }

  const autoTopUp = createAutoTopUpCalls({ stripe, clock: deps.clock, customerFor });

  /**
   * Expires the organisation's Stripe checkout sessions still open and matching `which`, at Stripe
   * and then here; one Stripe has completed meanwhile is left open here, for its event to complete.
   */
  async function expireOpen(db: DbOrTx, orgId: string, which: SQL | undefined): Promise<void> {
    const open = await db
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(
        and(
          eq(checkoutSessions.userId, orgId),
          which,
          eq(checkoutSessions.provider, "stripe"),
          eq(checkoutSessions.status, "open"),
          gt(checkoutSessions.expiresAt, deps.clock.now()),
        ),
      );
    for (const { id } of open) {
      const status = await expireSession(stripe, id);
      if (status === "expired") {
        await db.update(checkoutSessions).set({ status: "expired" }).where(eq(checkoutSessions.id, id));
      }
    }
  }

  return {
    kind: "stripe",
    readWebhook: stripeWebhookReader(deps.webhookSecret),
    ...autoTopUp.calls,

    async createCheckoutSession(db, checkout: NewCheckout): Promise<CreatedCheckout> {
      const customer = await customerFor(db, checkout.userId, checkout.email);
      const kind = checkout.mode === "subscription" ? "subscription" : "topup";
      const metadata = checkoutSessionMetadata({
        userId: checkout.userId,
        productId: checkout.productId,
        priceId: checkout.priceId,
        kind,
      });
      const session = await stripe.checkout.sessions.create({
        mode: checkout.mode,
        customer,
        client_reference_id: checkout.userId,
        line_items: [{ price: checkout.priceId, quantity: 1 }],
        success_url: checkout.successUrl,
        cancel_url: checkout.cancelUrl,
        metadata,
        // Payments are by card only (spec section 1): no delayed method (SEPA Direct Debit) whose
        // money arrives days after the session completes. This API version has no
        // `payment_method_types` on create; `allowed_payment_method_types` filters the methods the
        // account offers down to cards.
        allowed_payment_method_types: ["card"],
        // VAT by Stripe Tax from the buyer's address (prices are tax_behavior "exclusive": net),
        // a business's VAT ID for reverse charge, and both saved on the customer for renewals.
        automatic_tax: { enabled: true },
        billing_address_collection: "required",
        tax_id_collection: { enabled: true },
        customer_update: { address: "auto", name: "auto" },
        // Invoices and subscription events carry the subscription's metadata, not the session's.
        ...(checkout.mode === "subscription"
          ? {
              subscription_data: {
                metadata: subscriptionMetadata({ userId: checkout.userId, productId: checkout.productId }),
              },
            }
          : {
              payment_intent_data: { metadata },
              // A one-time payment gets a Stripe invoice too (subscriptions always have one).
              invoice_creation: { enabled: true, invoice_data: { metadata } },
            }),
      });
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
      const now = deps.clock.now();
      // Our own record of every session, for tracing a grant back to what the user was shown.
      await db.insert(checkoutSessions).values({
        id: session.id,
        provider: "stripe",
        userId: checkout.userId,
        mode: checkout.mode,
        productId: checkout.productId,
        priceId: checkout.priceId,
        amount: checkout.amount,
        currency: checkout.currency,
        status: "open",
        url: session.url,
        successUrl: checkout.successUrl,
        cancelUrl: checkout.cancelUrl,
        customerId: customer,
        openedBy: checkout.openedBy,
        createdAt: now,
        expiresAt: new Date(session.expires_at * 1000),
      });
      return { id: session.id, url: session.url };
    },

    async setCancelAtPeriodEnd(_db, subscriptionId, cancelAtPeriodEnd) {
      const sub = await stripe.subscriptions.retrieve(subscriptionId);
      if (sub.status === "canceled" || sub.cancel_at_period_end === cancelAtPeriodEnd) return;
      // A subscription held by a schedule cannot be cancelled directly: release it first.
      if (cancelAtPeriodEnd && sub.schedule) {
        await stripe.subscriptionSchedules.release(
          typeof sub.schedule === "string" ? sub.schedule : sub.schedule.id,
        );
      }
      await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancelAtPeriodEnd });
    },

    async scheduleChange(_db, subscriptionId, productId) {
      const sub = await stripe.subscriptions.retrieve(subscriptionId);
      const scheduleId = typeof sub.schedule === "string" ? sub.schedule : (sub.schedule?.id ?? null);
      if (productId === null) {
        if (scheduleId) await stripe.subscriptionSchedules.release(scheduleId);
        return;
      }
      const price = await priceOfProduct(stripe, productId);
      const schedule = scheduleId
        ? await stripe.subscriptionSchedules.retrieve(scheduleId)
        : await stripe.subscriptionSchedules.create({ from_subscription: subscriptionId });
      const current = schedule.current_phase ?? schedule.phases[0];
      const currentPrice = sub.items.data[0]?.price.id;
      if (!current || !currentPrice)
        throw new Error(`Subscription ${subscriptionId} has no current phase or price`);
      const currentProduct = sub.items.data[0]?.price.product;
      const userId = payerOf(sub.metadata) ?? "";
      // A phase's metadata becomes the subscription's when the phase starts: without it the
      // subscription would keep naming the old product after the switch.
      const phaseMetadata = (phaseProductId: string) =>
        subscriptionMetadata({ userId, productId: phaseProductId });
      await stripe.subscriptionSchedules.update(schedule.id, {
        end_behavior: "release",
        proration_behavior: "none",
        phases: [
          {
            items: [{ price: currentPrice, quantity: 1 }],
            start_date: current.start_date,
            end_date: current.end_date,
            metadata: phaseMetadata(
              typeof currentProduct === "string" ? currentProduct : (currentProduct?.id ?? ""),
            ),
          },
          {
            items: [{ price, quantity: 1 }],
            duration: { interval: "month", interval_count: 1 },
            metadata: phaseMetadata(productId),
          },
        ],
      });
    },

    async expireOpenCheckouts(db, userId, openedBy) {
      await expireOpen(
        db,
        userId,
        openedBy === undefined ? undefined : eq(checkoutSessions.openedBy, openedBy),
      );
      // The card-setup pages too: a removed member's could still save a card for the organisation.
      await autoTopUp.expireCardSetupSessions(db, userId, openedBy);
    },

    async expireSubscriptionCheckouts(db, orgId) {
      await expireOpen(db, orgId, eq(checkoutSessions.mode, "subscription"));
    },

    async saveCustomerDetails(db, orgId, details) {
      const customer = await customerFor(db, orgId, details.email);
      const { line1, line2, postal_code, city, country } = details.address;
      await stripe.customers.update(customer, {
        name: details.name,
        email: details.email,
        address: { line1, line2: line2 ?? "", postal_code, city, country },
      });
      // The customer's VAT ID: the one given, and no other (Stripe Tax reverse-charges on it once
      // its verification confirms it). Its state is that verification's, of the tax ID kept or made
      // now (usually pending: Stripe checks with VIES and sends customer.tax_id.updated).
      const taxIds = await stripe.customers.listTaxIds(customer, { limit: 100 });
      for (const taxId of taxIds.data) {
        if (taxId.value !== details.vatId) await stripe.customers.deleteTaxId(customer, taxId.id);
      }
      if (!details.vatId) return { customerId: customer, vatIdStatus: null };
      const taxId =
        taxIds.data.find((t) => t.value === details.vatId) ??
        (await stripe.customers.createTaxId(customer, { type: "eu_vat", value: details.vatId }));
      return { customerId: customer, vatIdStatus: vatIdStatusOf(taxId.verification?.status) };
    },

    async createPortalSession(_db, p) {
      const session = await stripe.billingPortal.sessions.create({
        customer: p.customerId,
        return_url: p.returnUrl,
      });
      return { url: session.url };
    },

    async retrieveSubscription(_db, subscriptionId) {
      const sub = await stripe.subscriptions.retrieve(subscriptionId).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      if (sub === null) return null;
      const read = parseStripeSubscription(sub);
      // Thrown: the webhook answers 500 and Stripe redelivers the event while the cause is fixed.
      if (!read.ok) throw new Error(`Stripe subscription ${subscriptionId} could not be read: ${read.error}`);
      return read.snapshot;
    },

    async invoiceOfPayment(_db, paymentIntentId) {
      // Since API version 2025-03-31 a charge no longer names its invoice: ask which invoice the
      // payment intent paid.
      const payments = await stripe.invoicePayments.list({
        payment: { type: "payment_intent", payment_intent: paymentIntentId },
        limit: 1,
      });
      const invoice = payments.data[0]?.invoice;
      if (!invoice) return null;
      return typeof invoice === "string" ? invoice : (invoice.id ?? null);
    },

    async refundPayment(_db, refund) {
      const paymentIntent = await paymentIntentOf(
        stripe,
        refund.paymentReference?.startsWith("pi_") ? refund.paymentReference : null,
        refund.providerInvoiceId,
      );
      if (!paymentIntent) return null;
      const created = await stripe.refunds.create(
        {
          payment_intent: paymentIntent,
          amount: refund.amount,
          metadata: { invoice_id: refund.invoiceId, reason: refund.reason.slice(0, 500) },
        },
        { idempotencyKey: `refund:${refund.invoiceId}:${refund.idempotencyKey}` },
      );
      return { refundId: created.id, status: created.status ?? "pending" };
    },

    async cancelNow(_db, subscriptionId, refundLatestInvoice) {
      try {
        await stripe.subscriptions.cancel(subscriptionId, { prorate: false });
      } catch (error) {
        // Already cancelled (by an earlier try of this step, or by Stripe after its retries): its
        // open invoices may still be there, so go on.
        if (!isMissing(error)) throw error;
      }
      // Stripe stops collecting a cancelled subscription's open invoices but leaves them open, owed
      // on their hosted pages: void them (ORGANISATIONS.md, deleting an organisation).
      for await (const invoice of stripe.invoices.list({ subscription: subscriptionId, status: "open" })) {
        if (invoice.id) await stripe.invoices.voidInvoice(invoice.id);
      }
      // The refund is the billing service's (refundUnclaimedPayment): it knows the payment.
      void refundLatestInvoice;
    },

    async refundUnclaimedPayment(_db, payment) {
      const paymentIntent = await paymentIntentOf(stripe, payment.paymentIntentId, payment.providerInvoiceId);
      if (!paymentIntent) return false;
      try {
        await stripe.refunds.create(
          { payment_intent: paymentIntent, metadata: { org_id: payment.orgId, reason: payment.reason } },
          // One refund per payment and reason, whichever of its events asked first. Stripe refuses a
          // key sent again with other parameters, and the reason is one of them; a refund asked
          // for another reason of a payment refunded already ends in charge_already_refunded.
          { idempotencyKey: `unclaimed-refund:${paymentIntent}:${reasonTag(payment.reason)}` },
        );
      } catch (error) {
        const code = (error as { code?: string }).code ?? "";
        // A second event of the same payment a day later (past the key's lifetime): done already.
        if (code === "charge_already_refunded") return true;
        // Refused for good (disputed meanwhile, not refundable): an operator must look. Anything
        // else (Stripe unreachable, a 5xx) is thrown, and the event is delivered again.
        if (PERMANENT_REFUND_REFUSALS.has(code)) return false;
        throw error;
      }
      return true;
    },

    async unclaimedRefundReason(_db, chargeId) {
      // refundUnclaimedPayment's refunds alone carry the organisation in their metadata; a
      // console refund names its invoice instead.
      for await (const refund of stripe.refunds.list({ charge: chargeId, limit: 100 })) {
        const { org_id: orgId, reason } = refund.metadata ?? {};
        if (orgId && reason) return reason;
      }
      return null;
    },
  };
}

/** A short, stable tag of a refund's reason for its idempotency key (keys are at most 255 characters). */
const reasonTag = (reason: string) => createHash("sha256").update(reason).digest("hex").slice(0, 16);

/** Stripe's refusals of a refund that no retry changes. */
const PERMANENT_REFUND_REFUSALS = new Set([
  "charge_disputed",
  "refund_disputed_payment",
  "charge_not_refundable",
]);

/** The payment intent that carried a payment: the one named, else the one that paid `invoiceId`. */
async function paymentIntentOf(
  stripe: Stripe,
  paymentIntentId: string | null,
  invoiceId: string | null,
): Promise<string | null> {
  if (paymentIntentId) return paymentIntentId;
  if (!invoiceId) return null;
  // A subscription's invoice: the payment intent that paid it.
  // The payment that paid it: an invoice may also hold failed or cancelled attempts.
  const payments = await stripe.invoicePayments.list({ invoice: invoiceId, status: "paid", limit: 1 });
  const paid = payments.data[0]?.payment?.payment_intent;
  return typeof paid === "string" ? paid : (paid?.id ?? null);
}

async function priceOfProduct(stripe: Stripe, productId: string): Promise<string> {
  const product = await stripe.products.retrieve(productId);
  const price = product.default_price;
  if (!price) throw new Error(`Stripe product ${productId} has no default price`);
  return typeof price === "string" ? price : price.id;
}

/**
 * What is wrong with a product's default price for what it claims to be: a tier must be billed
 * monthly, a pack once; both net of VAT (`tax_behavior: exclusive`, so Stripe Tax adds the VAT on
 * top, as the portal's "(excl. VAT)" says), and at the catalogue's amount and currency.
 */
export function priceProblems(
  productId: string,
  price: Pick<Stripe.Price, "unit_amount" | "currency" | "type" | "recurring" | "tax_behavior">,
  kind: "tier" | "top_up",
  expected: { unitAmount: number; currency: string },
): string[] {
  const problems: string[] = [];
  if (price.unit_amount !== expected.unitAmount || price.currency !== expected.currency) {
    problems.push(
      `${productId}: Stripe price ${price.unit_amount} ${price.currency}, catalogue ${expected.unitAmount} ${expected.currency}`,
    );
  }
  if (kind === "tier") {
    const monthly =
      price.type === "recurring" &&
      price.recurring?.interval === "month" &&
      price.recurring.interval_count === 1;
    if (!monthly)
      problems.push(`${productId}: a tier's price must recur every month (it is ${describePrice(price)})`);
  } else if (price.type !== "one_time") {
    problems.push(`${productId}: a top-up pack's price must be one-time (it is ${describePrice(price)})`);
  }
  if (price.tax_behavior !== "exclusive") {
    problems.push(
      `${productId}: the price's tax_behavior must be "exclusive" (prices are net; it is ${price.tax_behavior ?? "unset"})`,
    );
  }
  return problems;
}

function describePrice(price: Pick<Stripe.Price, "type" | "recurring">): string {
  if (price.type !== "recurring" || !price.recurring) return price.type;
  return `recurring every ${price.recurring.interval_count} ${price.recurring.interval}`;
}

/**
 * The catalogue's ids from the Stripe account: every active product tagged with
 * `metadata.tier` (A-E) or `metadata.top_up` (500, 1000), with its default price. Prices must
 * match the shared catalogue the portal shows; a mismatch stops the server rather than charge a
 * customer something else than they were shown.
 */
export async function loadIdSetFromStripe(stripe: Stripe): Promise<IdSet> {
  const tiers: Partial<IdSet["tiers"]> = {};
  const topUps: Partial<IdSet["topUps"]> = {};
  const problems: string[] = [];
  for await (const product of stripe.products.list({
    active: true,
    limit: 100,
    expand: ["data.default_price"],
  })) {
    const price = product.default_price;
    if (!price || typeof price === "string") continue;
    const tierKey = product.metadata[PRODUCT_METADATA.tier] as TierKey | undefined;
    const topUpKey = product.metadata[PRODUCT_METADATA.topUp] as TopUpKey | undefined;
    const expected = tierKey
      ? TIERS.find((t) => t.key === tierKey)
      : topUpKey
        ? TOP_UPS.find((t) => t.key === topUpKey)
        : undefined;
    if (!expected) continue;
    problems.push(...priceProblems(product.id, price, tierKey ? "tier" : "top_up", expected));
    const ids = { product: product.id, price: price.id };
    const claimed = tierKey ? tiers[tierKey] : topUpKey ? topUps[topUpKey] : undefined;
    if (claimed) {
      problems.push(
        `${product.id} and ${claimed.product} both claim ${tierKey ? `tier=${tierKey}` : `top_up=${topUpKey}`}`,
      );
    }
    if (tierKey) tiers[tierKey] = ids;
    else if (topUpKey) topUps[topUpKey] = ids;
  }
  for (const k of TIER_KEYS) if (!tiers[k]) problems.push(`no active product with metadata tier=${k}`);
  for (const k of TOP_UP_KEYS) if (!topUps[k]) problems.push(`no active product with metadata top_up=${k}`);
  if (problems.length > 0)
    throw new Error(`Stripe catalogue does not match:\n  - ${problems.join("\n  - ")}`);
  return { tiers: tiers as IdSet["tiers"], topUps: topUps as IdSet["topUps"] };
}
