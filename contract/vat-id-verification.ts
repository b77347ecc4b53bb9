// Whether a VAT ID has been confirmed (ORGANISATIONS.md: "A VAT ID gives reverse charge once it is
// confirmed ... until then VAT is charged, and Billing shows the state"). The states are Stripe's
// tax ID verification statuses; the local checkout confirms a well-formed ID at once, as its
// stand-in. Without zod: /profile/billing shows these words with its own code (decision 031).

/** Stripe's `tax_id.verification.status`, in the order a check goes through them. */
export const VAT_ID_STATUSES = ["pending", "verified", "unverified", "unavailable"] as const;
export type VatIdStatus = (typeof VAT_ID_STATUSES)[number];

/** Only a confirmed VAT ID gives reverse charge; every other state is charged VAT. */
export const givesReverseCharge = (status: VatIdStatus | null): boolean => status === "verified";

/** A provider's status as we store it: an unknown word (a newer API version's) is "pending", never "verified". */
export function vatIdStatusOf(value: unknown): VatIdStatus {
  return VAT_ID_STATUSES.find((s) => s === value) ?? "pending";
}

/** The badge beside the VAT ID on Billing: a word of its own, so the colour is never the only signal. */
export const VAT_ID_STATUS_BADGE: Record<VatIdStatus, string> = {
  pending: "Being checked",
  verified: "Confirmed",
  unverified: "Not confirmed",
  unavailable: "Not checked yet",
};

/** What Billing says beside the VAT ID, for each state. */
export const VAT_ID_STATUS_TEXT: Record<VatIdStatus, string> = {
  pending: "Being checked against the EU's VIES register: VAT is charged until it is confirmed.",
  verified:
    "Confirmed: no VAT is charged (reverse charge) when the seller is in another EU country than yours.",
  unverified: "Not confirmed by the EU's VIES register: VAT is charged. Check the number and save it again.",
  unavailable:
    "Could not be checked yet (the register did not answer): VAT is charged until it is confirmed.",
};
