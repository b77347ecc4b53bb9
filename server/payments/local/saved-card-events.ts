// The Stripe events of a card saved for later charges (AUTO-TOP-UP.md), as the local checkout sends
// them: its setup page completed (checkout.session.completed in setup mode), the SetupIntent that
// saved the card (setup_intent.succeeded), and the card removed (payment_method.detached). Built,
// like event-builders.ts, on Stripe's own example objects and checked against the SDK's types.
import type { Stripe } from "stripe";
import { type DeepPartial, type EventMeta, envelope, NO_ADDRESS, type Seconds } from "./event-builders.ts";
import { stripeFixture } from "./stripe-fixtures.ts";

/** The key billing reads the paying organisation from (server/payments/stripe/format.ts METADATA). */
const ORG_ID = "org_id";

export interface SetupSessionInput {
  /** cs_test_… */
  id: string;
  orgId: string;
  /** cus_… */
  customerId: string;
  /** The organisation's billing e-mail, as Checkout shows it. */
  email: string | null;
  currency: string;
  consentText: string;
  created: Seconds;
  expiresAt: Seconds;
  successUrl: string;
  cancelUrl: string;
  /** seti_… */
  setupIntentId: string;
}

/** A setup-mode session, completed: Stripe names its SetupIntent by id only, never the card. */
export function setupSessionObject(s: SetupSessionInput) {
  const ours = {
    id: s.id,
    object: "checkout.session" as const,
    amount_subtotal: null,
    amount_total: null,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: s.cancelUrl,
    client_reference_id: s.orgId,
    collected_information: null,
    created: s.created,
    currency: s.currency,
    currency_conversion: null,
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: { message: s.consentText },
      terms_of_service_acceptance: null,
    },
    customer: s.customerId,
    customer_creation: null,
    customer_details: {
      address: NO_ADDRESS,
      business_name: null,
      email: s.email,
      individual_name: null,
      name: null,
      phone: null,
      tax_exempt: "none" as const,
      tax_ids: [],
    },
    discounts: [],
    expires_at: s.expiresAt,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    metadata: { [ORG_ID]: s.orgId },
    mode: "setup" as const,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: "always" as const,
    payment_method_types: ["card"],
    payment_status: "no_payment_required" as const,
    setup_intent: s.setupIntentId,
    shipping_address_collection: null,
    shipping_cost: null,
    status: "complete" as const,
    subscription: null,
    success_url: s.successUrl,
    total_details: null,
    url: null,
  } satisfies DeepPartial<Stripe.Checkout.Session>;
  return { ...stripeFixture("checkout.session"), ...ours };
}

export function setupSessionCompletedEvent(meta: EventMeta, session: SetupSessionInput) {
  return envelope(
    meta,
    "checkout.session.completed",
    setupSessionObject(session),
  ) satisfies DeepPartial<Stripe.CheckoutSessionCompletedEvent>;
}

export interface SetupIntentInput {
  /** seti_… */
  id: string;
  orgId: string;
  /** The member who opened the setup page (metadata.opened_by, as Stripe's carries it). */
  openedBy: string | null;
  customerId: string;
  /** pm_… */
  paymentMethodId: string;
  created: Seconds;
}

export function setupIntentSucceededEvent(meta: EventMeta, intent: SetupIntentInput) {
  const ours = {
    id: intent.id,
    object: "setup_intent" as const,
    automatic_payment_methods: null,
    cancellation_reason: null,
    client_secret: `${intent.id}_secret_local`,
    created: intent.created,
    customer: intent.customerId,
    description: null,
    last_setup_error: null,
    latest_attempt: `setatt_${intent.id.replace(/^seti_/, "")}`,
    livemode: false,
    mandate: null,
    metadata: { [ORG_ID]: intent.orgId, ...(intent.openedBy ? { opened_by: intent.openedBy } : {}) },
    next_action: null,
    on_behalf_of: null,
    payment_method: intent.paymentMethodId,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { mandate_options: null, network: null, request_three_d_secure: "automatic" as const },
    },
    payment_method_types: ["card"],
    single_use_mandate: null,
    status: "succeeded" as const,
    usage: "off_session",
  } satisfies DeepPartial<Stripe.SetupIntent>;
  return envelope(meta, "setup_intent.succeeded", {
    ...stripeFixture("setup_intent"),
    ...ours,
  }) satisfies DeepPartial<Stripe.SetupIntentSucceededEvent>;
}

export interface PaymentMethodInput {
  /** pm_… */
  id: string;
  /** Null once detached. */
  customerId: string | null;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  created: Seconds;
}

export function paymentMethodObject(pm: PaymentMethodInput) {
  const ours = {
    id: pm.id,
    object: "payment_method" as const,
    allow_redisplay: "unspecified" as const,
    billing_details: { address: NO_ADDRESS, email: null, name: null, phone: null, tax_id: null },
    card: {
      brand: pm.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
      country: "US",
      display_brand: pm.brand,
      exp_month: pm.expMonth,
      exp_year: pm.expYear,
      // Stripe's fingerprint is the same for the same card number: the last 4 stand in for it.
      fingerprint: `local${pm.brand}${pm.last4}`,
      funding: "credit",
      generated_from: null,
      last4: pm.last4,
      networks: { available: [pm.brand], preferred: null },
      regulated_status: null,
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: pm.created,
    customer: pm.customerId,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: "card" as const,
  } satisfies DeepPartial<Stripe.PaymentMethod>;
  return { ...stripeFixture("payment_method"), ...ours };
}

/** Stripe's detached card names no customer; the one it had is in previous_attributes. */
export function paymentMethodDetachedEvent(meta: EventMeta, pm: PaymentMethodInput, customerId: string) {
  return envelope(meta, "payment_method.detached", paymentMethodObject({ ...pm, customerId: null }), {
    customer: customerId,
  }) satisfies DeepPartial<Stripe.PaymentMethodDetachedEvent>;
}
