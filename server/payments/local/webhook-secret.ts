// The key webhook events are signed with. Stripe gives each endpoint its own secret
// (STRIPE_WEBHOOK_SECRET, required in production). The local provider signs its events the same
// way; without a configured secret it derives one from the token signing key (itself persisted in
// DATA_DIR in development), so it is stable across restarts and shared by every instance.
import { createHmac } from "node:crypto";

export function resolveWebhookSecret(configured: string | undefined, seed: string): string {
  if (configured) return configured;
  return `whsec_${createHmac("sha256", seed).update("local-provider-webhook-secret").digest("base64url")}`;
}
