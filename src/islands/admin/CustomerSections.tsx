// The customer page's read-only parts: the overview, the credits' parts and ledger, payments, API
// keys (with Revoke). The audit trail is in AuditEntries.tsx. Each is a table with a caption, so a screen
// reader can jump between them; on a phone their rows stack as cards (ConsoleTable.tsx).
import type { ReactNode } from "react";
import type { AdminLedgerEntry, AdminPayment, Customer } from "../../../contract/admin.ts";
import { featureName } from "../../../contract/credit-costs.ts";
import { formatMoney } from "../../../contract/money.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { dayAndTime, isoDay } from "../../lib/format-date.ts";
import { creditsLeft, grantStanding } from "../../lib/grant-standing.ts";
import { PAYMENT_STATUS_LABELS } from "../../lib/payment-status-text.ts";
import { Table } from "./ConsoleTable.tsx";

const T = ADMIN_PAGE_TEXT.customer;

/** A payment's status in the customer's own words (their billing history's), else as stored. */
const statusLabel = (status: string) =>
  (PAYMENT_STATUS_LABELS as Record<string, string | undefined>)[status] ?? status;
const ACTIONS = ADMIN_PAGE_TEXT.customer.sections.actions;

const Empty = ({ text }: { text: string }) => <p className="text-sm text-base-content/70">{text}</p>;

/** A provider id (cus_…, sub_…, in_…, pi_…), read-only: one click selects all of it, to copy. */
const ProviderId = ({ value }: { value: string }) => (
  <code className="block select-all break-all font-mono text-xs" data-provider-id={value}>
    {value}
  </code>
);

export function Overview({ customer }: { customer: Customer }) {
  const F = T.facts;
  const sub = customer.subscription;
  const details = customer.billing_details;
  const facts: Array<[string, ReactNode]> = [
    [F.email, customer.email],
    [F.role, customer.role],
    [
      F.plan,
      `${sub.plan}${sub.status !== "free" ? ` (${sub.status}${sub.cancel_at_period_end ? ", cancels at period end" : ""})` : ""}`,
    ],
    [F.renews, isoDay(sub.expires_at) ?? F.none],
    [
      F.balance,
      <span key="balance" data-customer-balance>
        {formatBalance(customer.credit_balance)}
      </span>,
    ],
    [F.joined, isoDay(customer.created_at)],
    [F.lastLogin, dayAndTime(customer.last_login_at) ?? F.never],
    [
      F.billing,
      details ? [details.name, details.country, details.vat_id].filter(Boolean).join(", ") || F.none : F.none,
    ],
    [
      F.providerCustomer,
      customer.provider_customer_id ? (
        <ProviderId key="customer" value={customer.provider_customer_id} />
      ) : (
        F.none
      ),
    ],
    [
      F.providerSubscription,
      customer.provider_subscription_id ? (
        <ProviderId key="subscription" value={customer.provider_subscription_id} />
      ) : (
        F.none
      ),
    ],
  ];
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-4" data-customer-overview>
      {facts.map(([label, value]) => (
        <div key={label} className="flex min-w-0 flex-col">
          <dt className="text-xs text-base-content/70">{label}</dt>
          <dd className="break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Every grant with what it has left, judged at the server's time of the answer as the balance is:
 * an expired grant has 0 left and says how much expired unspent, a renewal not granted yet says
 * from when it counts, so the Left column never adds up to more than the balance and its renewals.
 */
export function CreditParts({ customer }: { customer: Customer }) {
  if (customer.credits.length === 0) return <Empty text={T.emptyLedger} />;
  const now = customer.as_of ? new Date(customer.as_of) : new Date();
  const C = T.creditColumns;
  return (
    <Table
      caption={T.sections.credits}
      head={[C.source, C.granted, C.left, C.grantedOn, C.expires]}
      numeric={[1, 2]}
    >
      {customer.credits.map((g) => {
        const standing = grantStanding(g, now);
        return (
          <tr key={`${g.granted_at}-${g.source}-${g.amount}`} data-credit-grant={standing}>
            <td>{g.source}</td>
            <td className="text-right tabular-nums">{formatBalance(g.amount)}</td>
            <td className="text-right tabular-nums">
              {formatBalance(creditsLeft(g, now))}
              {standing === "expired" && g.remaining > 0 && (
                <span className="block text-xs text-base-content/70">
                  {T.expiredUnspent(formatBalance(g.remaining))}
                </span>
              )}
            </td>
            <td className="whitespace-nowrap">
              {isoDay(g.granted_at)}
              {standing === "upcoming" && <span className="badge badge-info ml-1">{T.upcoming}</span>}
            </td>
            <td className="whitespace-nowrap">
              {isoDay(g.expires_at) ?? T.neverExpires}
              {standing === "expired" && <span className="badge badge-warning ml-1">{T.expired}</span>}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

export function Ledger({ lines }: { lines: readonly AdminLedgerEntry[] }) {
  if (lines.length === 0) return <Empty text={T.emptyLedger} />;
  const C = T.ledgerColumns;
  return (
    <Table
      caption={T.sections.ledger}
      head={[C.at, C.what, C.credits, C.count]}
      numeric={[2, 3]}
      keyColumn={1}
    >
      {lines.map((line) => (
        <tr key={`${line.at}-${line.kind}-${line.description}`} data-ledger-line={line.kind}>
          <td className="whitespace-nowrap tabular-nums">
            {/* A day's spends: the Berlin day they belong to (the API dates them at that day's end). */}
            {line.kind === "spend" ? `${isoDay(line.at)} (${T.dayTotal})` : dayAndTime(line.at)}
          </td>
          {/* A spend names its feature as customers know it (as the usage chart does), not by its id. */}
          <td>{line.kind === "spend" ? featureName(line.description) : line.description}</td>
          <td className="text-right font-medium tabular-nums">
            {line.credits > 0 ? "+" : ""}
            {formatBalance(line.credits)}
          </td>
          {/* Only a day's spends are made of charges; a grant or an adjustment is one event, not a count. */}
          <td className="text-right tabular-nums">{line.kind === "spend" ? line.count : ""}</td>
        </tr>
      ))}
    </Table>
  );
}

const money = (minor: number, currency: string) => formatMoney(minor, currency);

export function Payments({
  payments,
  pendingRefunds = {},
  action,
}: {
  payments: readonly AdminPayment[];
  /** Refunds asked from the console that the list does not count yet (by payment id). */
  pendingRefunds?: Readonly<Record<string, number>>;
  action?: (p: AdminPayment) => ReactNode;
}) {
  if (payments.length === 0) return <Empty text={T.emptyPayments} />;
  const C = T.paymentColumns;
  return (
    <Table
      caption={T.sections.payments}
      numeric={[4, 5]}
      keyColumn={1}
      actionColumn={8}
      head={[
        C.date,
        C.description,
        C.invoice,
        C.providerIds,
        C.total,
        C.refunded,
        C.status,
        C.creditNotes,
        <span key="a" className="sr-only">
          {ACTIONS}
        </span>,
      ]}
    >
      {payments.map((p) => (
        <tr key={p.id} data-payment={p.id}>
          <td className="whitespace-nowrap">{isoDay(p.issued_at)}</td>
          <td>{p.description}</td>
          <td className="whitespace-nowrap font-mono text-xs">{p.invoice_number ?? "—"}</td>
          <td data-payment-provider-ids>
            {[p.provider_invoice_id, p.payment_reference]
              .filter((id, i, all): id is string => !!id && all.indexOf(id) === i)
              .map((id) => (
                <ProviderId key={id} value={id} />
              ))}
            {!p.provider_invoice_id && !p.payment_reference && "—"}
          </td>
          <td className="text-right tabular-nums">
            {money(p.total, p.currency)}
            <span className="block text-xs text-base-content/70">VAT {money(p.tax, p.currency)}</span>
          </td>
          <td className="text-right tabular-nums">
            {p.refunded - (p.taken_back ?? 0) > 0 ? money(p.refunded - (p.taken_back ?? 0), p.currency) : "—"}
            {p.taken_back ? (
              <span className="block text-xs text-base-content/70" data-charged-back>
                {T.chargedBack(money(p.taken_back, p.currency))}
              </span>
            ) : null}
          </td>
          <td>
            {statusLabel(p.status)}
            {p.dispute && <span className="badge badge-warning ml-1">dispute {p.dispute}</span>}
            {pendingRefunds[p.id] !== undefined && (
              <span className="badge badge-info ml-1" data-refund-pending={pendingRefunds[p.id]}>
                {T.refundRequested}
              </span>
            )}
          </td>
          <td className="font-mono text-xs">{p.credit_notes.map((n) => n.number).join(", ") || "—"}</td>
          <td>{action?.(p)}</td>
        </tr>
      ))}
    </Table>
  );
}

export function ApiKeys({
  customer,
  onRevoke,
}: {
  customer: Customer;
  onRevoke: (key: Customer["api_keys"][number]) => void;
}) {
  if (customer.api_keys.length === 0) return <Empty text={T.emptyKeys} />;
  const C = T.keyColumns;
  return (
    <Table
      caption={T.sections.keys}
      numeric={[3]}
      actionColumn={5}
      head={[
        C.key,
        C.created,
        C.lastUsed,
        C.usage,
        C.status,
        <span key="a" className="sr-only">
          {ACTIONS}
        </span>,
      ]}
    >
      {customer.api_keys.map((key) => (
        <tr key={key.id} data-admin-key={key.id}>
          <td>
            {key.name}
            <span className="block font-mono text-xs text-base-content/70">{key.prefix}…</span>
          </td>
          <td className="whitespace-nowrap">{isoDay(key.created_at)}</td>
          <td className="whitespace-nowrap">{dayAndTime(key.last_used_at) ?? T.facts.never}</td>
          <td className="text-right tabular-nums">
            {formatBalance(key.credits_used_this_month)}
            {key.monthly_credit_limit !== null && ` / ${formatBalance(key.monthly_credit_limit)}`}
          </td>
          <td>{key.revoked_at ? `${T.revoked} ${isoDay(key.revoked_at)}` : T.live}</td>
          <td>
            {!key.revoked_at && (
              <button
                type="button"
                className="btn btn-error btn-xs"
                onClick={() => onRevoke(key)}
                aria-label={`${ADMIN_PAGE_TEXT.actions.revokeKey} ${key.prefix}`}
              >
                {ADMIN_PAGE_TEXT.actions.revokeKey}
              </button>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}
