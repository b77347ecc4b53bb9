// The composition of the payment side (beside main.ts, which starts it, and app.ts, which is given
// it): billing's ports meet the adapters of server/payments/ here and nowhere else.
//
// Chooses the payment provider from the configuration: Stripe when STRIPE_SECRET_KEY is set (its
// catalogue ids read from the Stripe account, STRIPE_WEBHOOK_SECRET required), otherwise the
// embedded local checkout, which is refused in production (env.ts also requires the Stripe
// settings there) and whose pages are off on a public HOST unless LOCAL_CHECKOUT_ON_PUBLIC_HOST.
import type { Logger } from "pino";
import Stripe from "stripe";
import { DETAIL } from "../contract/messages.ts";
import { PRODUCT_IDS } from "../contract/product-ids.ts";
import type { BackgroundTasks } from "./background.ts";
import { type Catalogue, createCatalogue } from "./billing/catalogue.ts";
import type { PaymentProvider } from "./billing/ports/payment-provider.ts";
import { customerStore } from "./billing/subscription-store.ts";
import type { Db } from "./db/types.ts";
import { type Config, localCheckoutEnabled } from "./env.ts";
import { ApiError } from "./http/errors.ts";
import { type OffsetClock, readClockOffset } from "./payments/local/billing-clock.ts";
import { httpSender } from "./payments/local/deliveries.ts";
import { createLocalPayments, type LocalPayments } from "./payments/local/local-payments.ts";
import { resolveWebhookSecret } from "./payments/local/webhook-secret.ts";
import { createStripeProvider, loadIdSetFromStripe } from "./payments/stripe/provider.ts";

/** The payment side: what is sold and who takes the money (the provider checks its own webhooks). */
export interface AppPayments {
  catalogue: Catalogue;
  provider: PaymentProvider;
  /** Present when the provider is the embedded local one (its hosted page, deliveries and billing job). */
  local?: LocalPayments | undefined;
  /** false: the local checkout's pages (/_checkout) are not served (a public HOST: localCheckoutEnabled). */
  checkoutPages?: boolean;
}

export interface SelectedPayments extends AppPayments {
  /** For the start-up log line. */
  description: string;
}

export async function selectPayments(
  config: Config,
  deps: { db: Db; clock: OffsetClock; logger: Logger; tasks: BackgroundTasks; signingKeyPem: string },
): Promise<SelectedPayments> {
  if (config.STRIPE_SECRET_KEY) {
    if (!config.STRIPE_WEBHOOK_SECRET) {
      throw new Error(
        "STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the webhook endpoint's signing secret)",
      );
    }
    const stripe = new Stripe(config.STRIPE_SECRET_KEY, {
      maxNetworkRetries: 2,
      appInfo: { name: "genai-portal" },
    });
    const catalogue = createCatalogue(await loadIdSetFromStripe(stripe));
    return {
      catalogue,
      provider: createStripeProvider({
        stripe,
        clock: deps.clock,
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        customers: customerStore,
      }),
      description: "Stripe",
    };
  }
  if (config.isProduction)
    throw new Error("The local checkout takes no real money and never runs in production.");
  // The billing clock's offset survives restarts (npm run billing:advance).
  deps.clock.setOffset(await readClockOffset(deps.db));
  const catalogue = createCatalogue(PRODUCT_IDS.test);
  const webhookSecret = resolveWebhookSecret(config.STRIPE_WEBHOOK_SECRET, deps.signingKeyPem);
  const local = createLocalPayments({
    db: deps.db,
    clock: deps.clock,
    offsetClock: deps.clock,
    logger: deps.logger,
    tasks: deps.tasks,
    catalogue,
    checkoutBaseUrl: localCheckoutBaseUrl(config),
    sellerCountry: config.seller.country,
    webhookSecret,
    customers: customerStore,
    send: httpSender(config.LOCAL_WEBHOOK_URL ?? `http://127.0.0.1:${config.PORT}/v1/webhooks/stripe`),
  });
  if (!localCheckoutEnabled(config)) {
    return {
      catalogue,
      provider: withoutLocalCheckout(local.provider),
      local,
      checkoutPages: false,
      description: "local checkout, off on this HOST (checkouts answer 503)",
    };
  }
  return {
    catalogue,
    provider: local.provider,
    local,
    description: "local checkout (test cards; npm run billing:advance -- --days N moves its clock)",
  };
}

/**
 * The local provider with its hosted pages off: starting a checkout, a card change or saving a card
 * for auto top-up answers 503 with a sentence, rather than sending the customer to a /_checkout
 * page that answers 404.
 */
export function withoutLocalCheckout(provider: PaymentProvider): PaymentProvider {
  const unavailable = async (): Promise<never> => {
    throw new ApiError(503, DETAIL.checkoutUnavailable);
  };
  return {
    ...provider,
    createCheckoutSession: unavailable,
    createPortalSession: unavailable,
    createCardSetupSession: unavailable,
  };
}

/**
 * Where the browser reaches this server's /_checkout pages: LOCAL_CHECKOUT_URL, else the portal's
 * origin when this one process also serves the portal on PORT (npm start), else this server's
 * own HOST and PORT (an API-only instance, or a test server on another port).
 */
export function localCheckoutBaseUrl(
  config: Pick<Config, "LOCAL_CHECKOUT_URL" | "portalUrl" | "PORT" | "HOST">,
): string {
  if (config.LOCAL_CHECKOUT_URL) return config.LOCAL_CHECKOUT_URL.replace(/\/+$/, "");
  const portal = new URL(config.portalUrl);
  const portalPort = Number(portal.port || (portal.protocol === "https:" ? 443 : 80));
  if (portalPort === config.PORT) return portal.origin;
  const wildcard = config.HOST === "0.0.0.0" || config.HOST === "::";
  const host = wildcard ? "localhost" : config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}`;
}
