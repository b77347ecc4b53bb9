// Auto top-up in the billing history (AUTO-TOP-UP.md: "every charge, failure and pause is in the
// billing history"). A paid charge is its invoice (settle.ts). A charge that failed (declined,
// given up, or waiting for the customer's authentication) is a "failed" row under the attempt's
// fulfilment key, so that paying it later turns the same row into the invoice; it says the latest
// outcome (declined on its payment page, cancelled). A charge that was due and not made because
// auto top-up paused (a limit, a new card or new terms without consent) is a "not_charged" row,
// once per fact (the same key its mail goes out once under). Pauses that no due charge met (a
// member left, billing details changed) are in the activity log and Billing's status, not here:
// the history lists payments, made or not (decision 032).
import { eq } from "drizzle-orm";
import { type AutoTopUpAttemptRow, invoices } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import {
  type AutoTopUpPack,
  DECLINE_SENTENCES,
  PAUSE_REASONS,
  type PauseReason,
} from "../../domain/auto-top-up.ts";
import { type Seller, taxed } from "../../domain/vat.ts";
import type { Catalogue } from "../catalogue.ts";
import { recordUnpaid, type UnpaidPayment } from "../invoices.ts";
import { autoTopUpKey } from "../ports/fulfilment-keys.ts";
import type { PaymentProvider } from "../ports/payment-provider.ts";
import { type VatOnFile, vatOnFile } from "./consents.ts";

export interface HistoryDeps {
  catalogue: Catalogue;
  seller: Seller;
  provider: Pick<PaymentProvider, "kind">;
}

const UNPAID_PREFIX = "Auto top-up: ";

/** What a history row of a pack not paid says: the pack and why. */
export function unpaidDescription(packName: string, why: string): string {
  return `${UNPAID_PREFIX}${packName}. ${why}`;
}

/**
 * The whys this server writes after a pack's name (a pause's sentence, a decline's): the longest
 * first, so that a why ending another one is not taken for all of it.
 */
const KNOWN_WHYS: readonly string[] = [
  ...new Set([
    ...Object.values(PAUSE_REASONS).map((reason) => reason.sentence),
    ...Object.values(DECLINE_SENTENCES),
  ]),
].sort((a, b) => b.length - a.length);

/**
 * The pack of an unpaid row's description, without the why ("Auto top-up: 500 credit pack", as its
 * invoice names it once paid); any other description as it is. The description is
 * `Auto top-up: <pack>. <why>`, and both the pack's name and the why may hold ". " (a why is often
 * two sentences): a why this server writes is taken off whole; any other (a cancellation's, older
 * words) is the rest from the first ". " that starts a sentence (a capital letter).
 */
export function unpaidPack(description: string): string {
  if (!description.startsWith(UNPAID_PREFIX)) return description;
  const known = KNOWN_WHYS.find(
    (why) => description.endsWith(`. ${why}`) && description.length > UNPAID_PREFIX.length + why.length + 2,
  );
  if (known) return description.slice(0, description.length - known.length - 2);
  const sentence = /\. (?=\p{Lu})/gu;
  sentence.lastIndex = UNPAID_PREFIX.length;
  const end = sentence.exec(description)?.index;
  return end === undefined ? description : description.slice(0, end);
}

const packName = (deps: HistoryDeps, productId: string, credits: number) =>
  deps.catalogue.findTopUp(productId)?.topUp.name ?? `${credits} credit pack`;

/**
 * The VAT of the organisation's billing details on file today, and of the buyer only what decides
 * it (country, VAT ID): these rows are no invoices, so they keep no name, e-mail or address for
 * the years the invoices table is kept. Paying a failed row fills in the buyer as invoiced.
 */
async function buyerToday(tx: Tx, deps: HistoryDeps, orgId: string, now: Date, known?: VatOnFile) {
  const { vat, buyer } = known ?? (await vatOnFile(tx, orgId, deps.seller.country, now));
  return {
    rateBasisPoints: vat.rateBasisPoints,
    reverseCharge: vat.treatment === "reverse_charge",
    buyer: { name: null, email: null, ...buyer },
  };
}

/** An attempt that did not pay (declined, given up, or waiting for authentication): a failed row. */
export async function recordFailedAttempt(
  tx: Tx,
  deps: HistoryDeps,
  attempt: AutoTopUpAttemptRow,
  sentence: string,
  now: Date,
): Promise<void> {
  const { buyer, reverseCharge } = await buyerToday(tx, deps, attempt.orgId, now);
  const row: UnpaidPayment = {
    userId: attempt.orgId,
    fulfilmentKey: autoTopUpKey(attempt.id),
    provider: attempt.provider,
    kind: "topup",
    status: "failed",
    description: unpaidDescription(packName(deps, attempt.productId, attempt.credits), sentence),
    attemptedAt: now,
    payment: {
      net: attempt.net,
      tax: attempt.gross - attempt.net,
      total: attempt.gross,
      currency: attempt.currency,
      reverseCharge,
      buyer,
    },
    providerInvoiceId: attempt.providerInvoiceId,
    paymentReference: attempt.providerInvoiceId,
  };
  await recordUnpaid(tx, row, deps.seller, now);
}

/**
 * An attempt cancelled (auto top-up changed or turned off, its payment link lapsed, its invoice
 * voided): the failed row it already has says so. One that never had a row gets none: nothing
 * was refused by the card, and the customer's own change or staff's cancelled it.
 */
export async function recordCancelledAttempt(
  tx: Tx,
  deps: HistoryDeps,
  attempt: AutoTopUpAttemptRow,
  detail: string,
  now: Date,
): Promise<void> {
  const [row] = await tx
    .select({ status: invoices.status })
    .from(invoices)
    .where(eq(invoices.fulfilmentKey, autoTopUpKey(attempt.id)));
  if (row?.status === "failed") await recordFailedAttempt(tx, deps, attempt, detail, now);
}

/**
 * A charge that was due and that a pause held back: a "not_charged" row with the pack's price at
 * the organisation's VAT today, once per `fact` (a limit pause's start, a consent, a card).
 */
export async function recordChargeNotMade(
  tx: Tx,
  deps: HistoryDeps,
  orgId: string,
  pack: Omit<AutoTopUpPack, "currency"> & { currency: string },
  reason: PauseReason,
  fact: string,
  now: Date,
  /** The VAT on file, when the caller has just read it. */
  onFile?: VatOnFile,
): Promise<void> {
  const { buyer, reverseCharge, rateBasisPoints } = await buyerToday(tx, deps, orgId, now, onFile);
  const row: UnpaidPayment = {
    userId: orgId,
    fulfilmentKey: `auto_top_up_not_charged:${reason}:${fact}`,
    provider: deps.provider.kind,
    kind: "topup",
    status: "not_charged",
    description: unpaidDescription(
      packName(deps, pack.productId, pack.credits),
      PAUSE_REASONS[reason].sentence,
    ),
    attemptedAt: now,
    payment: { ...taxed(pack.unitAmount, rateBasisPoints), currency: pack.currency, reverseCharge, buyer },
    providerInvoiceId: null,
    paymentReference: null,
  };
  await recordUnpaid(tx, row, deps.seller, now);
}
