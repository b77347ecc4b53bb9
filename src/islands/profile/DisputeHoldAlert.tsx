// The dispute hold (ACCOUNT-SECURITY.md) as /profile shows it beside the credits and Billing at the
// top of its page: the balance is there, but the organisation's keys are refused 402 until support
// clears the hold. Both pages load it only for a held organisation (a chunk of its own).
import { DISPUTE_HOLD_TEXT as H } from "../../lib/dispute-hold-text.ts";
import { linkAttributes, NEW_TAB_HINT } from "../../lib/links.ts";

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

export default function DisputeHoldAlert({ team, contact, className = "", paying = false }: Props) {
  const attributes = linkAttributes(contact);
  return (
    <div role="alert" className={`alert alert-warning text-sm ${className}`} data-dispute-hold>
      <div className="flex flex-col gap-1">
        <p>
          <strong className="font-semibold">{H.title}</strong> {H.refused(team)}{" "}
          <a href={contact} className="link font-medium" {...attributes}>
            {H.contact}
            {attributes.target && <span className="sr-only"> {NEW_TAB_HINT}</span>}
          </a>
          {H.promise}
        </p>
        {paying && <p>{H.paying}</p>}
      </div>
    </div>
  );
}
