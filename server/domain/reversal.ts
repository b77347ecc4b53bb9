// Money that goes back, as rules: what a refund or a dispute of a payment does to the credits the
// payment granted and to its row in the billing history. billing/reversals.ts finds the payment and
// its grant, records each step once per provider fact, and applies what these functions decide.
//
// A grant's `remaining` never goes below zero: credits already spent stay spent, so the balance
// never does. `frozen` holds what an open dispute set aside.

/** A billing-history row's status (the invoices table's). */
export type PaymentStatus = "paid" | "failed" | "not_charged" | "refunded" | "disputed";

/** The payment as recorded: its total and what is refunded so far (minor units). */
export interface PaymentRecord {
  total: number;
  refunded: number;
  status: PaymentStatus;
}

/** The credits one payment granted: how many, how many are left, how many an open dispute froze. */
export interface GrantBalance {
  amount: number;
  remaining: number;
  frozen: number;
}

/**
 * The credits a refund of `delta` (of the payment's `total`) takes back from a grant: the same share
 * of what it granted, at most what is left; everything left once the whole payment is refunded.
 */
export function creditsToTakeBack(
  grant: Pick<GrantBalance, "amount" | "remaining">,
  p: { delta: number; refundedSoFar: number; total: number },
): number {
  if (p.total <= 0 || p.delta <= 0) return 0;
  if (p.refundedSoFar >= p.total) return grant.remaining;
  return Math.min(grant.remaining, Math.floor((grant.amount * p.delta) / p.total));
}

export interface RefundStep {
  /** The cumulative refund, at most the total. */
  refundedSoFar: number;
  /** Credits taken back from the grant (0 without one). */
  takenBack: number;
  /** How many of them came out of what an open dispute froze (the rest out of `remaining`). */
  fromFrozen: number;
  status: PaymentStatus;
}

/**
 * charge.refunded with Stripe's cumulative `amountRefunded`. Null when it is no newer than what is
 * recorded (a redelivery, or a late event of an earlier partial refund): nothing changes.
 */
export function refundStep(
  payment: PaymentRecord,
  amountRefunded: number,
  grant: GrantBalance | undefined,
): RefundStep | null {
  const refundedSoFar = Math.min(amountRefunded, payment.total);
  const delta = refundedSoFar - payment.refunded;
  if (delta <= 0) return null;
  // The credits not spent are those left and those an open dispute froze. A refund during a dispute
  // (Stripe allows one during an inquiry, and a prevented dispute comes with one) takes from the
  // frozen first: the dispute's close then has only the rest to give back or take, and a refunded
  // payment's credits never come back with an inquiry closed in the seller's favour.
  const unspent = grant && { amount: grant.amount, remaining: grant.remaining + grant.frozen };
  const takenBack = unspent ? creditsToTakeBack(unspent, { delta, refundedSoFar, total: payment.total }) : 0;
  return {
    refundedSoFar,
    takenBack,
    fromFrozen: Math.min(grant?.frozen ?? 0, takenBack),
    status: refundedSoFar >= payment.total ? "refunded" : payment.status,
  };
}

/**
 * How a closed dispute ended, from Stripe's `status`: only `lost` takes the money back. An inquiry
 * (`warning_closed`) never took it, and a `won` or `prevented` dispute returned it or never
 * withdrew it; the frozen credits come back. A status not known here is neither: the credits stay
 * frozen until someone looks (the caller logs it).
 */
export function closedDisputeOutcome(status: string): "won" | "lost" | "unknown" {
  if (status === "lost") return "lost";
  return status === "won" || status === "warning_closed" || status === "prevented" ? "won" : "unknown";
}

/**
 * Whether a lost dispute puts the account on a dispute hold (ACCOUNT-SECURITY.md): when part of
 * what the payment granted was spent before the dispute froze the rest, the card network has taken
 * the money back and the credits are gone. `grant` as it was before the loss; credits that refunds
 * or staff took back (`takenBack`) were not spent.
 */
export function lostDisputeNeedsHold(grant: GrantBalance, takenBack: number): boolean {
  return grant.remaining + grant.frozen + takenBack < grant.amount;
}

/**
 * What our own refunds gave back of a payment, in cents. Each charge.refunded is recorded once as a
 * credit adjustment whose reference names the charge and its cumulative refunded amount
 * ("refund:ch_…:2500"), since refunds began (migration 0004): each charge's latest amount counts,
 * never more than the payment's `total`. Credit notes came later (0007), so the refunds made before
 * have none; their sum (`creditNoted`) counts when it is more (a refund of a payment that granted
 * nothing issues a credit note and records no adjustment). References of other facts are ignored.
 */
export function refundedByUs(references: readonly string[], total: number, creditNoted = 0): number {
  const latest = new Map<string | undefined, number>();
  for (const reference of references) {
    const fact = /^refund:(.+):(\d+)$/.exec(reference);
    if (!fact) continue;
    const charge = fact[1];
    latest.set(charge, Math.max(latest.get(charge) ?? 0, Number(fact[2])));
  }
  let refunded = 0;
  for (const amount of latest.values()) refunded += amount;
  return Math.min(total, Math.max(refunded, creditNoted));
}

/**
 * What the buyer's bank took back of a payment whose dispute was lost, in cents: what went back of
 * it (`returned`: the whole total, once lost) less what our own refunds gave before the dispute
 * (`refundedByUs`: as refundedByUs() reads them, or the payment's `refunded` as it stood before the
 * loss). The invoice, the console's payments, the account's export and the hold mail each say it,
 * so a refund is counted once.
 */
export function takenBackByBank(returned: number, refundedByUs: number): number {
  return Math.max(0, returned - refundedByUs);
}

export interface DisputeStep {
  /** The adjustment recorded, and the credits it moves. */
  kind: "dispute_freeze" | "dispute_won" | "dispute_lost";
  amount: number;
  grant: Pick<GrantBalance, "remaining" | "frozen">;
  payment: { status: PaymentStatus; refunded: number };
}

/**
 * A dispute's creation freezes what is left of the purchase's credits; its close gives them back
 * when the dispute is won, and takes them (and the money, in the history) when it is lost.
 */
export function disputeStep(
  grant: Pick<GrantBalance, "remaining" | "frozen">,
  payment: Pick<PaymentRecord, "total" | "refunded">,
  p: { phase: "created" | "closed"; won: boolean },
): DisputeStep {
  if (p.phase === "created") {
    return {
      kind: "dispute_freeze",
      amount: grant.remaining,
      grant: { remaining: 0, frozen: grant.frozen + grant.remaining },
      payment: { status: "disputed", refunded: payment.refunded },
    };
  }
  if (p.won) {
    return {
      kind: "dispute_won",
      amount: grant.frozen,
      grant: { remaining: grant.remaining + grant.frozen, frozen: 0 },
      payment: {
        status: payment.refunded >= payment.total ? "refunded" : "paid",
        refunded: payment.refunded,
      },
    };
  }
  return {
    kind: "dispute_lost",
    amount: grant.frozen + grant.remaining,
    grant: { remaining: 0, frozen: 0 },
    payment: { status: "refunded", refunded: payment.total },
  };
}
