// The state a VAT ID collected with a payment is stored in (decision 031). PUT /v1/billing/details
// takes the provider's answer instead; Stripe's customer.tax_id.* events correct either later.
import type { VatIdStatus } from "../../contract/vat-id-verification.ts";
import { compactVatId } from "./vat.ts";

export interface CollectedVatId {
  /** The provider that collected it: the local checkout confirms a well-formed ID as its stand-in. */
  provider: "local" | "stripe";
  /** A checkout's payment (the buyer has just entered it), not a renewal billed from the details on file. */
  atCheckout: boolean;
  /** The VAT ID the payment carries, or null. */
  vatId: string | null;
  /** The VAT ID on file and its state, before this payment. */
  onFile: { vatId: string | null; status: VatIdStatus | null } | null;
}

/**
 * Null without a VAT ID. The local checkout has confirmed the ID it collected ("verified"). Otherwise
 * the VAT ID on file keeps its state (a renewal carries it unchanged, and Stripe has checked it
 * already); a new one waits for Stripe's check ("pending") — with the local provider, where only
 * its checkout collects IDs, one is "verified".
 */
export function collectedVatIdStatus(c: CollectedVatId): VatIdStatus | null {
  if (c.vatId === null) return null;
  if (c.provider === "local" && c.atCheckout) return "verified";
  const sameAsOnFile = c.onFile?.vatId != null && compactVatId(c.onFile.vatId) === compactVatId(c.vatId);
  if (sameAsOnFile && c.onFile?.status) return c.onFile.status;
  return c.provider === "local" ? "verified" : "pending";
}
