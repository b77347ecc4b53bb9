// What billing shows a customer: the ledger of their credit grants, the billing history and its
// invoices (as data and as a PDF), and the billing details on file.
import type { LedgerEntry } from "../../contract/billing.ts";
import { PRODUCT_NAME } from "../../contract/brand.ts";
import { invoicePdfName } from "../../contract/invoice-document.ts";
import type { BillingDetails, Invoice, InvoiceSummary } from "../../contract/invoices.ts";
import type { Db } from "../db/types.ts";
import { addressLines } from "../domain/billing-details.ts";
import { type CreditGrant, fromMillicredits } from "../domain/ledger.ts";
import { billingEmailOf } from "./billing-contacts.ts";
import { creditNoteSummary, creditNoteView, userCreditNote, userCreditNotes } from "./credit-notes.ts";
import { invoicePdfRefusal, renderInvoicePdf } from "./invoice-pdf.ts";
import { type BuyerOnFile, invoiceSummary, invoiceView } from "./invoice-view.ts";
import { userInvoice, userInvoices } from "./invoices.ts";
import { userGrants } from "./ledger-store.ts";
import { BillingRefusal } from "./refusal.ts";
import { findBillingDetails, loadState } from "./subscription-store.ts";
import { takenBackOfLostDisputes } from "./taken-back.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A grant as the ledger shows it (the customer's /profile and the console's customer page). */
export function toLedgerEntry(g: CreditGrant): LedgerEntry {
  return {
    kind: g.kind,
    amount: fromMillicredits(g.amount),
    remaining: fromMillicredits(g.remaining),
    granted_at: g.grantedAt.toISOString(),
    expires_at: g.expiresAt?.toISOString() ?? null,
    source: g.source,
    ...(g.note ? { note: g.note } : {}),
  };
}

export function billingReads(db: Db) {
  /** One stored invoice of the user, or refused (another user's id answers the same as an unknown one). */
  async function invoiceRow(userId: string, invoiceId: string) {
    const row = UUID.test(invoiceId) ? await userInvoice(db, userId, invoiceId) : undefined;
    if (!row) throw new BillingRefusal("invoice_not_found");
    return row;
  }

  /**
   * The buyer's name, address and billing e-mail on file today, as the paid invoice will give them
   * (auto-top-up/settle.ts): the address only when it is in the row's country, the one the payment
   * is taxed for. An invoice taxed for one country does not carry an address in another.
   */
  async function buyerOnFile(row: {
    userId: string;
    buyer: { country: string | null };
  }): Promise<BuyerOnFile> {
    const [details, email] = await Promise.all([
      findBillingDetails(db, row.userId),
      billingEmailOf(db, row.userId),
    ]);
    return {
      name: details?.name ?? null,
      address: addressLines(details?.address ?? null, row.buyer.country),
      email: details?.email ?? email,
    };
  }

  /**
   * A lost dispute's invoice with what the bank took back: `refunded` less what our refunds gave
   * before it (taken-back.ts), so the invoice does not count a refund twice.
   */
  async function withTakenBack(invoice: Invoice): Promise<Invoice> {
    const takenBack = (await takenBackOfLostDisputes(db, [invoice])).get(invoice.id);
    return takenBack === undefined ? invoice : { ...invoice, taken_back: takenBack };
  }

  return {
    /** Every grant, newest first. Future-dated renewal grants are listed: they are paid for, live from granted_at. */
    async ledger(userId: string): Promise<LedgerEntry[]> {
      return (await userGrants(db, userId)).map(toLedgerEntry);
    },

    /**
     * The billing history with its credit notes, newest first: the latest 200 invoices, or with
     * `every` all of them (the account's data export).
     */
    async invoices(userId: string, every = false): Promise<InvoiceSummary[]> {
      const [rows, notes] = await Promise.all([
        userInvoices(db, userId, every ? null : 200),
        userCreditNotes(db, userId),
      ]);
      return [...rows.map(invoiceSummary), ...notes.map(creditNoteSummary)].sort((a, b) =>
        b.date.localeCompare(a.date),
      );
    },

    /** One invoice or credit note of the user (another user's id answers the same as an unknown one). */
    async invoice(userId: string, invoiceId: string): Promise<Invoice> {
      const note = UUID.test(invoiceId) ? await userCreditNote(db, userId, invoiceId) : undefined;
      if (note) return creditNoteView(note);
      const row = await invoiceRow(userId, invoiceId);
      // A payment waiting for the bank names the buyer as its invoice will (invoice-view.ts).
      return withTakenBack(
        invoiceView(row, row.status === "authentication_required" ? await buyerOnFile(row) : undefined),
      );
    },

    /**
     * One of our own invoices as a PDF (invoice-pdf.ts). A failed payment has no invoice, and
     * Stripe's invoices are Stripe's documents: both are refused with the reason.
     */
    async invoicePdf(userId: string, invoiceId: string): Promise<{ pdf: Buffer; filename: string }> {
      const note = UUID.test(invoiceId) ? await userCreditNote(db, userId, invoiceId) : undefined;
      if (note) {
        const view = creditNoteView(note);
        return {
          pdf: await renderInvoicePdf(view, { producer: PRODUCT_NAME }),
          filename: invoicePdfName(view),
        };
      }
      const row = await invoiceRow(userId, invoiceId);
      const refusal = invoicePdfRefusal(row);
      if (refusal) throw new BillingRefusal(refusal);
      const invoice = await withTakenBack(invoiceView(row));
      return {
        pdf: await renderInvoicePdf(invoice, { producer: PRODUCT_NAME }),
        filename: invoicePdfName(invoice),
      };
    },

    async details(userId: string): Promise<BillingDetails> {
      const [details, state, billingEmail] = await Promise.all([
        findBillingDetails(db, userId),
        loadState(db, userId),
        billingEmailOf(db, userId),
      ]);
      const address = details?.address;
      return {
        details: details?.country
          ? {
              name: details.name,
              country: details.country,
              vat_id: details.vatId,
              vat_id_status: details.vatId ? (details.vatIdStatus ?? "pending") : null,
              email: details.email,
              address: address ? { ...address, line2: address.line2 ?? null } : null,
            }
          : null,
        billing_email: billingEmail,
        can_update_payment_method: state.status !== "free",
      };
    },
  };
}
