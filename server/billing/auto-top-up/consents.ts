// What auto top-up's consent is made of (AUTO-TOP-UP.md, "Consent"): the packs it can buy, the
// organisation's VAT today from its billing details on file, the text for given values, and the
// consents stored as evidence (the rendered text, its version, the values and card, who, when and
// from where), kept 10 years.
import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import { givesReverseCharge } from "../../../contract/vat-id-verification.ts";
import { type AutoTopUpSettingsRow, autoTopUpConsents, type SavedCardRow } from "../../db/schema/index.ts";
import type { DbOrTx } from "../../db/types.ts";
import {
  type AutoTopUpPack,
  CONSENT_TEXT_VERSION,
  consentCoversCharge,
  consentText,
  type Money,
  type PackTerms,
  packGross,
  type VatToday,
  WITHDRAWAL_WAIVER,
} from "../../domain/auto-top-up.ts";
import { decideVat, taxed } from "../../domain/vat.ts";
import type { Catalogue } from "../catalogue.ts";
import { findBillingDetails } from "../subscription-store.ts";

/** The packs auto top-up can buy: the catalogue's top-ups, smaller first. */
export function autoTopUpPacks(catalogue: Pick<Catalogue, "topUpProducts" | "findTopUp">): AutoTopUpPack[] {
  const packs: AutoTopUpPack[] = [];
  for (const product of catalogue.topUpProducts) {
    const offer = catalogue.findTopUp(product.id);
    if (!offer) continue;
    packs.push({
      productId: offer.productId,
      credits: offer.topUp.tokenAmount,
      unitAmount: offer.topUp.unitAmount,
      currency: offer.topUp.currency,
    });
  }
  return packs;
}

/** The VAT the organisation's next auto top-up is charged at, and whether it counts as a business. */
export interface VatOnFile {
  vat: VatToday;
  /**
   * A confirmed VAT ID is on file. Without one the organisation is treated as a consumer and its
   * consent carries the waiver of the right of withdrawal: an ID not yet confirmed may be nobody's,
   * and the waiver costs a business nothing, while a consumer's missing one cannot be given later.
   */
  hasVatId: boolean;
  /** Of the buyer, only what decides the VAT (history.ts keeps no more for rows that are no invoices). */
  buyer: { country: string | null; vatId: string | null };
}

/**
 * The organisation's VAT today, as its invoices decide it (decideVat) from the billing details on
 * file; only a confirmed VAT ID gives reverse charge (decision 031). Without details on file the
 * seller's own country's VAT: the most an invoice to an unknown buyer is charged.
 */
export async function vatOnFile(
  db: DbOrTx,
  orgId: string,
  sellerCountry: string,
  now: Date,
): Promise<VatOnFile> {
  const details = await findBillingDetails(db, orgId);
  const confirmedVatId =
    details?.vatId && givesReverseCharge(details.vatIdStatus ?? null) ? details.vatId : null;
  const decision = decideVat({
    sellerCountry,
    buyerCountry: details?.country ?? sellerCountry,
    vatId: confirmedVatId,
    at: now,
  });
  return {
    vat: { treatment: decision.treatment, rateBasisPoints: decision.rateBasisPoints },
    hasVatId: confirmedVatId !== null,
    buyer: { country: details?.country ?? null, vatId: details?.vatId ?? null },
  };
}

/** The values a consent covers, as PUT and the consent-text call give them (the pack already found). */
export interface ConsentChoice {
  card: Pick<SavedCardRow, "paymentMethodId" | "brand" | "last4">;
  pack: AutoTopUpPack;
  /** Whole credits. */
  threshold: number;
  monthlyLimit: Money;
}

/** The text to accept for exactly these values, at the organisation's VAT today. */
export function consentTextFor(
  choice: ConsentChoice,
  onFile: VatOnFile,
): { text: string; textVersion: string } {
  const text = consentText({
    cardLast4: choice.card.last4,
    pack: choice.pack,
    vat: onFile.vat,
    hasVatId: onFile.hasVatId,
    threshold: choice.threshold,
    monthlyLimit: choice.monthlyLimit,
  });
  return { text, textVersion: CONSENT_TEXT_VERSION };
}

/** Who accepted, from where. */
export interface ConsentGiver {
  userId: string;
  /** The member's address at the time: the account may be gone when the evidence is needed. */
  email: string;
  ip: string | null;
  userAgent: string | null;
}

/** Stores the consent to `choice` with the text it was given for; answers its id. */
export async function storeConsent(
  db: DbOrTx,
  orgId: string,
  choice: ConsentChoice,
  onFile: VatOnFile,
  giver: ConsentGiver,
  now: Date,
): Promise<string> {
  const id = randomUUID();
  const { text, textVersion } = consentTextFor(choice, onFile);
  await db.insert(autoTopUpConsents).values({
    id,
    orgId,
    userId: giver.userId,
    userEmail: giver.email,
    textVersion,
    text,
    choice: {
      threshold: choice.threshold,
      product_id: choice.pack.productId,
      monthly_limit: { amount: choice.monthlyLimit.amount, currency: choice.monthlyLimit.currency },
      card: {
        payment_method_id: choice.card.paymentMethodId,
        brand: choice.card.brand,
        last4: choice.card.last4,
      },
      pack: { credits: choice.pack.credits, net: choice.pack.unitAmount, currency: choice.pack.currency },
      vat: { treatment: onFile.vat.treatment, rate_basis_points: onFile.vat.rateBasisPoints },
    },
    clientAddress: giver.ip,
    userAgent: giver.userAgent,
    acceptedAt: now,
  });
  return id;
}

/** The monthly limit of the organisation's latest consent (what a member last authorised), or null. */
export async function lastConsentedLimit(db: DbOrTx, orgId: string): Promise<Money | null> {
  const [row] = await db
    .select({ choice: autoTopUpConsents.choice })
    .from(autoTopUpConsents)
    .where(eq(autoTopUpConsents.orgId, orgId))
    .orderBy(desc(autoTopUpConsents.acceptedAt))
    .limit(1);
  const limit = row?.choice.monthly_limit as Partial<Money> | undefined;
  if (typeof limit?.amount !== "number" || typeof limit.currency !== "string") return null;
  return { amount: limit.amount, currency: limit.currency };
}

/**
 * Whether the consent in force still covers what a charge of `pack` would be now (billing details
 * can change its gross and whether the withdrawal waiver is needed): consentCoversCharge on the
 * terms the consent stored (its values and text) against today's. No consent covers nothing.
 */
export async function consentStillCovers(
  db: DbOrTx,
  settings: Pick<AutoTopUpSettingsRow, "orgId" | "consentId">,
  pack: AutoTopUpPack,
  onFile: VatOnFile,
): Promise<boolean> {
  if (settings.consentId === null) return false;
  const [consent] = await db
    .select({ text: autoTopUpConsents.text, choice: autoTopUpConsents.choice })
    .from(autoTopUpConsents)
    .where(eq(autoTopUpConsents.id, settings.consentId));
  const agreed = consent && termsOfConsent(consent);
  if (!agreed) return false;
  return consentCoversCharge(agreed, {
    credits: pack.credits,
    gross: packGross(pack, onFile.vat),
    currency: pack.currency,
    waiver: !onFile.hasVatId,
  });
}

/** The price per pack a stored consent agreed to (its values as storeConsent wrote them). */
function termsOfConsent(consent: { text: string; choice: Record<string, unknown> }): PackTerms | null {
  const pack = consent.choice.pack as { credits?: unknown; net?: unknown; currency?: unknown } | undefined;
  const vat = consent.choice.vat as { rate_basis_points?: unknown } | undefined;
  if (typeof pack?.net !== "number" || typeof pack.currency !== "string" || typeof pack.credits !== "number")
    return null;
  if (typeof vat?.rate_basis_points !== "number") return null;
  return {
    credits: pack.credits,
    gross: taxed(pack.net, vat.rate_basis_points).total,
    currency: pack.currency,
    waiver: consent.text.includes(WITHDRAWAL_WAIVER),
  };
}

/** The text of a stored consent (what the member accepted), or null when there is none. */
export async function consentTextOf(db: DbOrTx, consentId: string | null): Promise<string | null> {
  if (consentId === null) return null;
  const [row] = await db
    .select({ text: autoTopUpConsents.text })
    .from(autoTopUpConsents)
    .where(eq(autoTopUpConsents.id, consentId));
  return row?.text ?? null;
}
