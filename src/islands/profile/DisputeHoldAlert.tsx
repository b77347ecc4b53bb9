// The dispute hold (ACCOUNT-SECURITY.md) as /profile shows it beside the credits and Billing at the
// top of its page: the balance is there, but the organisation's keys are refused 402 until support
// clears the hold. Both pages load it only for a held organisation (a chunk of its own). It names
// the disputed payment's invoice, with a link to it, when the account's answer carries it (an owner
// or billing member's: `dispute_hold_invoice`), read from the account store both pages render from.
import { useStore } from "@nanostores/react";
import type { User } from "../../../contract/account.ts";
import { DISPUTE_HOLD_TEXT as H } from "../../lib/dispute-hold-text.ts";
import { invoicePagePath } from "../../lib/invoice-view.ts";
import { linkAttributes, NEW_TAB_HINT } from "../../lib/links.ts";
import { $user } from "../../stores/auth.ts";

interface Props {
  /** A team organisation's hold ("this organisation's keys") rather than the personal one's. */
  team: boolean;
  /** The support contact page (site-links.yaml's "contact", as the footer links it). */
  contact: string;
  /** Classes for where the page places it (a grid's span). */
  className?: string;
  /** Billing's reader is about to pay: say what paying does while the hold lasts. */
  paying?: boolean;
}

/** A link that may open a new tab (Stripe's invoice page, the support page), saying so to a screen reader. */
function Link({ href, children }: { href: string; children: string }) {
  const attributes = linkAttributes(href);
  return (
    <a href={href} className="link font-medium" {...attributes}>
      {children}
      {attributes.target && <span className="sr-only"> {NEW_TAB_HINT}</span>}
    </a>
  );
}

/** "The bank took back the payment for invoice INV-…": Stripe's page of it, or the portal's. */
function DisputedInvoice({ invoice }: { invoice: NonNullable<User["dispute_hold_invoice"]> }) {
  if (!invoice.number) return null;
  return (
    <>
      <span data-dispute-hold-invoice>
        {H.invoice.before}{" "}
        <Link href={invoice.invoice_url ?? invoicePagePath(invoice.id)}>{invoice.number}</Link>{" "}
        {H.invoice.after}
      </span>{" "}
    </>
  );
}

export default function DisputeHoldAlert({ team, contact, className = "", paying = false }: Props) {
  const invoice = useStore($user).user?.dispute_hold_invoice;
  return (
    <div role="alert" className={`alert alert-warning text-sm ${className}`} data-dispute-hold>
      <div className="flex flex-col gap-1">
        <p>
          <strong className="font-semibold">{H.title}</strong>{" "}
          {invoice && <DisputedInvoice invoice={invoice} />}
          {H.refused(team)} <Link href={contact}>{H.contact}</Link>
          {H.promise}
        </p>
        {paying && <p>{H.paying}</p>}
      </div>
    </div>
  );
}
