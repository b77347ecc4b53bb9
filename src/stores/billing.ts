// Billing actions for the islands: checkout redirects, plan changes and cancellation (each
// refetches the user). The catalogue reads are fetcher stores in catalogue.ts.
import { apiRequest } from "../lib/api-client.ts";
import { safeCheckoutUrl } from "../lib/safe-redirect.ts";
import { refreshUser } from "./auth.ts";

/** The hosted checkout's address from a checkout answer; throws (the caller shows its error) unless http(s). */
function checkoutDestination(url: string): string {
  const safe = safeCheckoutUrl(url, window.location.href);
  if (!safe) throw new Error("The checkout answer holds no web address");
  return safe;
}

/** Starts a subscription checkout and returns the hosted checkout's URL. */
export async function startSubscriptionCheckout(product: string, price: string): Promise<string> {
  const { url } = await apiRequest("/v1/create-checkout-session", "checkoutUrlSchema", {
    method: "POST",
    body: { product, price },
    auth: true,
  });
  return checkoutDestination(url);
}

/** Starts a top-up checkout and returns the hosted checkout's URL. */
export async function startTopUpCheckout(productId: string): Promise<string> {
  const { url } = await apiRequest("/v1/create-top-up-checkout", "checkoutUrlSchema", {
    method: "POST",
    body: { product_id: productId },
    auth: true,
  });
  return checkoutDestination(url);
}

/** Schedules a change of tier, then refetches the user (spec section 7). */
export async function updateSubscription(productId: string): Promise<void> {
  await apiRequest("/v1/update-subscription", "userSchema", {
    method: "POST",
    body: { product_id: productId },
    auth: true,
  });
  await refreshUser();
}

/** Cancels at the period end, then refetches the user (spec section 7). */
export async function cancelSubscription(): Promise<void> {
  await apiRequest("/v1/cancel-subscription", "userSchema", { method: "POST", auth: true });
  await refreshUser();
}
