// Auto top-up's charges at the local checkout (AUTO-TOP-UP.md): a one-off invoice per attempt,
// taxed from the organisation's billing details as a renewal is, charged off-session to the saved
// test card with the outcome the contract's table gives it, paid on its own page when the bank asks
// for authentication, and voided when billing cancels the attempt. Every change is told to billing
// as Stripe would tell it (invoice.paid, .payment_failed, .payment_action_required, .voided),
// queued in the same transaction; the answers carry the same facts, so billing can act on either.
import { and, eq } from "drizzle-orm";
import type { PaymentFacts } from "../../billing/ports/events.ts";
import type {
  AutoTopUpCharge,
  AutoTopUpChargeAnswer,
  AutoTopUpInvoice,
  Catalogue,
  CustomerStore,
} from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import { type LocalInvoiceRow, localInvoices, localPaymentMethods } from "../../db/schema/index.ts";
import type { Db, DbOrTx, Tx } from "../../db/types.ts";
import { decideVat, vatOf } from "../../domain/vat.ts";
import { newStripeId } from "../stripe/format.ts";
import { offSessionOutcome } from "./cards.ts";
import { enqueueEvent } from "./deliveries.ts";
import type { SaleTax } from "./event-builders.ts";
import {
  type OneOffInvoiceInput,
  oneOffInvoiceActionRequiredEvent,
  oneOffInvoicePaidEvent,
  oneOffInvoicePaymentFailedEvent,
  oneOffInvoiceVoidedEvent,
} from "./one-off-invoice-events.ts";
import { type LocalStripeObjects, seconds } from "./stripe-objects.ts";

/** How long the payment page of an invoice awaiting authentication works (billing then voids it). */
export const PAY_LINK_LIFETIME_MS = 7 * 86_400_000;

/** Stripe's error code when the card cannot be charged any more (detached, or never ours). */
export const CARD_NOT_AVAILABLE = "payment_method_not_available";
const AUTHENTICATION_REQUIRED = "authentication_required";

export type InvoicePageState = "payable" | "paid" | "void" | "expired" | "unavailable";
export type InvoicePage = { ok: true; invoice: LocalInvoiceRow; state: InvoicePageState } | { ok: false };

const awaitsAuthentication = (inv: LocalInvoiceRow) =>
  inv.status === "open" && inv.lastErrorCode === AUTHENTICATION_REQUIRED;

/** What the invoice's page can do now. */
function pageState(inv: LocalInvoiceRow, now: Date): InvoicePageState {
  if (inv.status === "paid") return "paid";
  if (inv.status === "void") return "void";
  if (!awaitsAuthentication(inv)) return "unavailable";
  if (inv.createdAt.getTime() + PAY_LINK_LIFETIME_MS <= now.getTime()) return "expired";
  return "payable";
}

/** The invoice's tax as its events and answers describe it. */
function saleTaxOf(inv: LocalInvoiceRow): SaleTax {
  return {
    amount: inv.tax,
    rateBasisPoints: inv.taxRateBasisPoints,
    treatment: inv.taxTreatment,
    buyer: { name: inv.buyerName, email: inv.buyerEmail, country: inv.buyerCountry, vatId: inv.buyerVatId },
  };
}

/** PaymentFacts as the event parser reads them from the invoice.paid this invoice sends. */
export function paymentFactsOf(inv: LocalInvoiceRow): PaymentFacts {
  return {
    net: inv.net,
    tax: inv.tax,
    total: inv.total,
    currency: inv.currency,
    reverseCharge: inv.taxTreatment === "reverse_charge",
    buyer: { name: inv.buyerName, email: inv.buyerEmail, country: inv.buyerCountry, vatId: inv.buyerVatId },
  };
}

function paidAnswer(inv: LocalInvoiceRow): AutoTopUpChargeAnswer {
  return {
    status: "paid",
    invoiceId: inv.id,
    paymentIntentId: inv.paymentIntentId,
    // In whole seconds, as Stripe answers and as the invoice.paid event says it.
    paidAt: new Date(seconds(inv.paidAt ?? inv.createdAt) * 1000),
    payment: paymentFactsOf(inv),
    // Our own series numbers a local payment's invoice when it is granted: no number or page here.
    document: { invoiceId: inv.id, number: null, hostedInvoiceUrl: null, invoicePdfUrl: null },
  };
}

export function offSessionInvoices(deps: {
  db: Db;
  clock: Clock;
  catalogue: Catalogue;
  customers: CustomerStore;
  checkoutBaseUrl: string;
  /** The seller's country: decides the VAT (server/domain/vat.ts). */
  sellerCountry: string;
  objects: Pick<LocalStripeObjects, "meta" | "renewalTax">;
}) {
  const { db, clock, catalogue, customers } = deps;
  const { meta, renewalTax } = deps.objects;

  const payUrlOf = (invoiceId: string) => `${deps.checkoutBaseUrl}/_checkout/invoice/${invoiceId}`;

  /**
   * The VAT of the pack for the organisation, as a renewal's (stripe-objects.ts renewalTax: a VAT
   * ID gives reverse charge only once verified). Without billing details on file, where Stripe Tax
   * would refuse to finalise, the stand-in charges the seller's domestic VAT: never less than due.
   */
  async function taxOf(tx: DbOrTx, orgId: string, net: number, now: Date): Promise<SaleTax> {
    const onFile = await renewalTax(tx, orgId, net, now);
    if (onFile) return onFile;
    const decision = decideVat({
      sellerCountry: deps.sellerCountry,
      buyerCountry: deps.sellerCountry,
      vatId: null,
      at: now,
    });
    return {
      amount: vatOf(net, decision.rateBasisPoints),
      rateBasisPoints: decision.rateBasisPoints,
      treatment: decision.treatment,
      buyer: { name: null, email: await customers.findBillingEmail(tx, orgId), country: null, vatId: null },
    };
  }

  function eventInput(inv: LocalInvoiceRow, hostedInvoiceUrl: string | null = null): OneOffInvoiceInput {
    const priceId = catalogue.findTopUp(inv.productId)?.priceId;
    if (!priceId) throw new Error(`Local invoice ${inv.id} for unknown pack ${inv.productId}`);
    return {
      id: inv.id,
      customerId: inv.customerId,
      orgId: inv.orgId,
      attemptId: inv.attemptId,
      paymentMethodId: inv.paymentMethodId,
      productId: inv.productId,
      priceId,
      description: inv.description,
      currency: inv.currency,
      net: inv.net,
      tax: saleTaxOf(inv),
      created: seconds(inv.createdAt),
      status: inv.status === "draft" ? "open" : inv.status,
      paidAt: inv.paidAt ? seconds(inv.paidAt) : null,
      voidedAt: inv.voidedAt ? seconds(inv.voidedAt) : null,
      attemptCount: inv.paidAt || inv.lastErrorCode ? 1 : 0,
      hostedInvoiceUrl,
    };
  }

  async function lockInvoice(tx: Tx, invoiceId: string): Promise<LocalInvoiceRow | undefined> {
    const [inv] = await tx.select().from(localInvoices).where(eq(localInvoices.id, invoiceId)).for("update");
    return inv;
  }

  /** Pays the (locked, open) invoice now and queues invoice.paid. */
  async function markPaid(tx: Tx, inv: LocalInvoiceRow, now: Date): Promise<LocalInvoiceRow> {
    const [paid] = await tx
      .update(localInvoices)
      .set({ status: "paid", paidAt: now })
      .where(eq(localInvoices.id, inv.id))
      .returning();
    if (!paid) throw new Error(`local invoice ${inv.id} vanished`);
    await enqueueEvent(tx, oneOffInvoicePaidEvent(meta(now), eventInput(paid)), now);
    return paid;
  }

  /** Records a failed attempt on the (locked, open) invoice; answers it as it stands now. */
  async function recordFailure(tx: Tx, inv: LocalInvoiceRow, code: string, declineCode: string | null) {
    const [failed] = await tx
      .update(localInvoices)
      .set({ lastErrorCode: code, lastDeclineCode: declineCode })
      .where(eq(localInvoices.id, inv.id))
      .returning();
    if (!failed) throw new Error(`local invoice ${inv.id} vanished`);
    return failed;
  }

  /** The state of an invoice as billing reads it (readAutoTopUpInvoice, and paying a settled one). */
  function answerOf(inv: LocalInvoiceRow): AutoTopUpChargeAnswer {
    if (inv.status === "paid") return paidAnswer(inv);
    if (inv.status === "void") return { status: "void", invoiceId: inv.id };
    if (awaitsAuthentication(inv))
      return { status: "requires_action", invoiceId: inv.id, payUrl: payUrlOf(inv.id) };
    if (inv.lastErrorCode !== null)
      return { status: "declined", invoiceId: inv.id, code: inv.lastDeclineCode ?? inv.lastErrorCode };
    return { status: "open", invoiceId: inv.id };
  }

  /** One off-session charge of the (locked, open) invoice's card, by its test number. */
  async function charge(tx: Tx, inv: LocalInvoiceRow, now: Date): Promise<AutoTopUpChargeAnswer> {
    const [card] = await tx
      .select()
      .from(localPaymentMethods)
      .where(eq(localPaymentMethods.id, inv.paymentMethodId));
    // Stripe refuses the request before any attempt: no invoice event, only the error.
    if (!card || card.detachedAt !== null || card.orgId !== inv.orgId)
      return answerOf(await recordFailure(tx, inv, CARD_NOT_AVAILABLE, null));
    const outcome = offSessionOutcome(card.cardNumber);
    if (outcome.status === "paid") return paidAnswer(await markPaid(tx, inv, now));
    const failed = await recordFailure(tx, inv, outcome.code, outcome.declineCode);
    if (outcome.status === "requires_action") {
      const event = oneOffInvoiceActionRequiredEvent(meta(now), eventInput(failed, payUrlOf(failed.id)));
      await enqueueEvent(tx, event, now);
    } else {
      await enqueueEvent(tx, oneOffInvoicePaymentFailedEvent(meta(now), eventInput(failed)), now);
    }
    return answerOf(failed);
  }

  return {
    async createAutoTopUpInvoice(tx: DbOrTx, c: AutoTopUpCharge): Promise<AutoTopUpInvoice> {
      const existing = async () =>
        (
          await tx
            .select({ id: localInvoices.id, total: localInvoices.total })
            .from(localInvoices)
            .where(eq(localInvoices.attemptId, c.attemptId))
        )[0];
      const made = await existing();
      if (made) return { invoiceId: made.id, total: made.total };
      const now = clock.now();
      const tax = await taxOf(tx, c.orgId, c.amount, now);
      // Two callers for one attempt (a retry racing the first): the unique attempt key keeps one.
      await tx
        .insert(localInvoices)
        .values({
          id: newStripeId("in"),
          customerId: c.customerId,
          orgId: c.orgId,
          attemptId: c.attemptId,
          paymentMethodId: c.paymentMethodId,
          productId: c.productId,
          description: c.description,
          currency: c.currency,
          net: c.amount,
          tax: tax.amount,
          total: c.amount + tax.amount,
          taxTreatment: tax.treatment,
          taxRateBasisPoints: tax.rateBasisPoints,
          buyerName: tax.buyer.name,
          buyerEmail: tax.buyer.email,
          buyerCountry: tax.buyer.country,
          buyerVatId: tax.buyer.vatId,
          status: "open",
          paymentIntentId: newStripeId("pi"),
          createdAt: now,
        })
        .onConflictDoNothing({ target: localInvoices.attemptId });
      const stored = await existing();
      if (!stored) throw new Error(`local invoice of attempt ${c.attemptId} was not made`);
      return { invoiceId: stored.id, total: stored.total };
    },

    async payAutoTopUpInvoice(
      tx: DbOrTx,
      c: AutoTopUpCharge,
      invoiceId: string,
    ): Promise<AutoTopUpChargeAnswer> {
      return tx.transaction(async (inner) => {
        const inv = await lockInvoice(inner, invoiceId);
        if (!inv || inv.attemptId !== c.attemptId)
          throw new Error(`local invoice ${invoiceId} is not attempt ${c.attemptId}'s`);
        // Paid or void already: answered as it is, nothing charged or sent again.
        if (inv.status !== "open") return answerOf(inv);
        return charge(inner, inv, clock.now());
      });
    },

    async readAutoTopUpInvoice(tx: DbOrTx, invoiceId: string): Promise<AutoTopUpChargeAnswer> {
      const [inv] = await tx.select().from(localInvoices).where(eq(localInvoices.id, invoiceId));
      if (!inv) throw new Error(`local invoice ${invoiceId} does not exist`);
      return answerOf(inv);
    },

    async voidAutoTopUpInvoice(tx: DbOrTx, invoiceId: string, attemptId: string): Promise<void> {
      await tx.transaction(async (inner) => {
        const inv = await lockInvoice(inner, invoiceId);
        if (inv && inv.attemptId !== attemptId)
          throw new Error(`local invoice ${invoiceId} is not attempt ${attemptId}'s`);
        if (inv?.status !== "open") return;
        const now = clock.now();
        const [voided] = await inner
          .update(localInvoices)
          .set({ status: "void", voidedAt: now })
          .where(and(eq(localInvoices.id, invoiceId), eq(localInvoices.status, "open")))
          .returning();
        if (voided) await enqueueEvent(inner, oneOffInvoiceVoidedEvent(meta(now), eventInput(voided)), now);
      });
    },

    /**
     * The auto top-up invoice a payment intent paid: a refund or dispute names only the payment
     * intent, and an invoice paid on its page told billing its invoice id alone (as Stripe's
     * invoice events do). Null for every other payment: the checkout's are found by their own ids.
     */
    async invoiceOfPayment(tx: DbOrTx, paymentIntentId: string): Promise<string | null> {
      const [inv] = await tx
        .select({ id: localInvoices.id })
        .from(localInvoices)
        .where(eq(localInvoices.paymentIntentId, paymentIntentId));
      return inv?.id ?? null;
    },

    /**
     * The attempt an invoice was made for: its metadata.auto_top_up_attempt_id, which the stand-in's
     * invoice objects carry where Stripe's do (oneOffInvoiceObject). Every local invoice is one.
     */
    async autoTopUpAttemptOfInvoice(tx: DbOrTx, invoiceId: string): Promise<string | null> {
      const [inv] = await tx
        .select({ attemptId: localInvoices.attemptId })
        .from(localInvoices)
        .where(eq(localInvoices.id, invoiceId));
      return inv?.attemptId ?? null;
    },

    /** The payment page's invoice and what the page can do with it. */
    async findInvoicePage(invoiceId: string): Promise<InvoicePage> {
      const [inv] = await db.select().from(localInvoices).where(eq(localInvoices.id, invoiceId));
      if (!inv) return { ok: false };
      return { ok: true, invoice: inv, state: pageState(inv, clock.now()) };
    },

    /**
     * The customer confirmed the payment on its page (the simulated authentication): paid now,
     * on-session, and invoice.paid queued. Anything else answers the page's state unchanged.
     */
    async payOnPage(invoiceId: string): Promise<{ page: InvoicePage; paidNow: boolean }> {
      return db.transaction(async (tx) => {
        const inv = await lockInvoice(tx, invoiceId);
        if (!inv) return { page: { ok: false }, paidNow: false };
        const now = clock.now();
        const state = pageState(inv, now);
        if (state !== "payable") return { page: { ok: true, invoice: inv, state }, paidNow: false };
        return { page: { ok: true, invoice: await markPaid(tx, inv, now), state: "paid" }, paidNow: true };
      });
    },
  };
}
