// What auto top-up's state reads as, for Billing's section and the console's panel alike: the
// status in words (with its colour as a second cue) and its reason, the saved card, this month's
// charges against the limit, and the latest attempts (cards on a phone, a table on wider screens).
import type {
  AutoTopUp,
  AutoTopUpAttempt,
  AutoTopUpPauseReason,
  SavedCard,
} from "../../../contract/auto-top-up.ts";
import { chargedNothing } from "../../../contract/invoice-status.ts";
import { formatMoney } from "../../../contract/money.ts";
import { chargesMeter } from "../../lib/auto-top-up-form.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../lib/auto-top-up-text.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { attemptInvoiceLink } from "../../lib/invoice-view.ts";
import { InvoiceAnchor } from "../billing-history/InvoiceAnchor.tsx";
import { NoAmount } from "../billing-history/NoAmount.tsx";

const T = AUTO_TOP_UP_PAGE_TEXT;

const STATUS_BADGE: Record<AutoTopUp["status"], string> = {
  active: "badge-success",
  paused: "badge-warning",
  off: "badge-neutral",
};

export function StatusBadge({ status }: { status: AutoTopUp["status"] }) {
  return (
    <span className={`badge ${STATUS_BADGE[status]}`} data-auto-top-up-badge={status}>
      {T.statusLabels[status]}
    </span>
  );
}

/** Billing's status line: where the focus goes once a save or a removal took away what had it. */
export const STATUS_ID = "auto-top-up-status";

/** Moves the focus to the status line after the next paint (the control that had it is gone). */
export function focusStatus(): void {
  requestAnimationFrame(() => document.getElementById(STATUS_ID)?.focus());
}

/** The status's sentence: the API's reason, or what the state means. */
export function statusSentence(data: Pick<AutoTopUp, "status" | "reason_text">): string {
  return data.reason_text ?? T.statusText[data.status];
}

/** The status's sentence on Billing itself: where the API's points to Billing, what to do here. */
export function billingStatusSentence(
  data: Pick<AutoTopUp, "status" | "reason_text" | "paused_reason">,
): string {
  const reason = data.status === "paused" ? data.paused_reason : null;
  const here = reason && isPauseReason(reason) ? T.pausedHere[reason] : null;
  return here ?? statusSentence(data);
}

/** A pause reason this portal knows: the API's field is a plain string, and may bring a newer one. */
function isPauseReason(reason: string): reason is AutoTopUpPauseReason {
  return Object.hasOwn(T.pausedHere, reason);
}

export function CardSummary({ card }: { card: SavedCard | null }) {
  if (!card) return <p className="text-sm">{T.card.none}</p>;
  return (
    <p className="flex flex-wrap items-baseline gap-x-3 text-sm" data-saved-card={card.last4}>
      <span className="font-medium tabular-nums">{T.card.number(card.brand, card.last4)}</span>
      <span className="text-base-content/80 tabular-nums">
        {T.card.expires(card.exp_month, card.exp_year)}
      </span>
    </p>
  );
}

export function ChargesMeter({
  data,
}: {
  data: Pick<AutoTopUp, "charged_this_month" | "reserved_this_month" | "monthly_limit">;
}) {
  const meter = chargesMeter(data);
  return (
    <div className="flex flex-col gap-1.5" data-auto-top-up-charges>
      <progress
        className="progress progress-primary w-full"
        value={meter.value}
        max={meter.max}
        aria-label={T.charges.label}
        aria-valuetext={meter.text}
      />
      <p className="text-sm tabular-nums">{meter.text}</p>
      {meter.reserved && (
        <p className="text-xs text-base-content/70" data-auto-top-up-reserved>
          {T.charges.reservedNote}
        </p>
      )}
    </div>
  );
}

const ATTEMPT_BADGE: Record<AutoTopUpAttempt["status"], string> = {
  processing: "badge-info",
  authentication_required: "badge-warning",
  paid: "badge-success",
  failed: "badge-error",
  cancelled: "badge-ghost",
};

function AttemptStatus({ attempt }: { attempt: AutoTopUpAttempt }) {
  return (
    <span className={`badge badge-sm whitespace-nowrap ${ATTEMPT_BADGE[attempt.status]}`}>
      {T.attempts.statusLabels[attempt.status]}
    </span>
  );
}

/** The attempt's invoice number, linked to its invoice as the history links it (`linked`: Billing's own view). */
function InvoiceNumber({ attempt, linked }: { attempt: AutoTopUpAttempt; linked: boolean }) {
  const link = linked && attempt.invoice_number ? attemptInvoiceLink(attempt) : null;
  if (!link) return attempt.invoice_number ?? "—";
  return <InvoiceAnchor link={link}>{attempt.invoice_number}</InvoiceAnchor>;
}

/**
 * Whether an automatic top-up charged nothing (declined or cancelled): its billing history row is a
 * top-up's, which shows no amounts then (chargedNothing), and neither does the attempt.
 */
export const attemptChargedNothing = (attempt: Pick<AutoTopUpAttempt, "status">): boolean =>
  attempt.status !== "processing" && chargedNothing({ status: attempt.status, kind: "topup" });

/** The attempt's amount; none for one that charged nothing (declined or cancelled), as Billing's history shows it. */
const amountOf = (a: AutoTopUpAttempt) =>
  attemptChargedNothing(a) ? <NoAmount /> : formatMoney(a.amount.amount, a.amount.currency);
const creditsOf = (a: AutoTopUpAttempt) => a.credits.toLocaleString("en-US");

/**
 * The latest attempts, newest first: one card each on a phone, a table from `sm` up. `linkInvoices`:
 * the invoice numbers link to the invoices (the customer's Billing; the console has no such page).
 */
export function Attempts({
  attempts,
  headingLevel = 3,
  linkInvoices = false,
}: {
  attempts: readonly AutoTopUpAttempt[];
  headingLevel?: 2 | 3;
  linkInvoices?: boolean;
}) {
  const A = T.attempts;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <div className="flex flex-col gap-2" data-auto-top-up-attempts>
      <Heading className="text-base font-semibold">{A.title}</Heading>
      {attempts.length === 0 ? (
        <p className="text-sm text-base-content/80">{A.none}</p>
      ) : (
        <>
          <ul className="flex flex-col gap-2 sm:hidden">
            {attempts.map((a) => (
              <li key={a.id} className="rounded-box border border-base-300 p-3 text-sm" data-attempt={a.id}>
                <div className="flex items-start justify-between gap-2">
                  <span className="tabular-nums">{dayAndTime(a.at)}</span>
                  <AttemptStatus attempt={a} />
                </div>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 tabular-nums">
                  <dt>{A.credits}</dt>
                  <dd className="text-right">{creditsOf(a)}</dd>
                  <dt>{A.amount}</dt>
                  <dd className="text-right">{amountOf(a)}</dd>
                  {a.invoice_number && (
                    <>
                      <dt>{A.invoice}</dt>
                      <dd className="text-right">
                        <InvoiceNumber attempt={a} linked={linkInvoices} />
                      </dd>
                    </>
                  )}
                </dl>
                {a.detail && <p className="mt-1">{a.detail}</p>}
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto sm:block">
            <table className="table table-sm">
              <caption className="sr-only">{A.caption}</caption>
              <thead>
                <tr>
                  <th scope="col">{A.date}</th>
                  <th scope="col" className="text-right">
                    {A.credits}
                  </th>
                  <th scope="col" className="text-right">
                    {A.amount}
                  </th>
                  <th scope="col">{A.status}</th>
                  <th scope="col">{A.invoice}</th>
                  <th scope="col">{A.detail}</th>
                </tr>
              </thead>
              <tbody>
                {attempts.map((a) => (
                  <tr key={a.id} data-attempt={a.id} data-status={a.status}>
                    <td className="whitespace-nowrap tabular-nums">{dayAndTime(a.at)}</td>
                    <td className="text-right tabular-nums">{creditsOf(a)}</td>
                    <td className="text-right tabular-nums">{amountOf(a)}</td>
                    <td>
                      <AttemptStatus attempt={a} />
                    </td>
                    <td className="whitespace-nowrap">
                      <InvoiceNumber attempt={a} linked={linkInvoices} />
                    </td>
                    <td className="min-w-48">{a.detail ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

/** The last attempt when it awaits the bank's confirmation, with where it is completed. */
export function pendingPayment(
  data: Pick<AutoTopUp, "attempts" | "last_attempt">,
): AutoTopUpAttempt | undefined {
  if (data.last_attempt?.status !== "authentication_required") return undefined;
  return data.attempts.find((a) => a.status === "authentication_required" && a.pay_url);
}
