// Audit entries as the console shows them: on the customer page's trail and on /admin/audit.
import type { AuditEntryView } from "../../../contract/admin.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { clientOf, detailsText } from "../../lib/audit-view.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { Table } from "./ConsoleTable.tsx";

const T = ADMIN_PAGE_TEXT.customer;

const Empty = ({ text }: { text: string }) => <p className="text-sm text-base-content/70">{text}</p>;

/**
 * The browser an entry came from in short ("Chrome 131 on Windows"): a User-Agent is five lines on
 * a phone, and rarely what a reader wants. The whole string opens from the summary, which a
 * keyboard reaches like a button.
 */
function Client({ entry }: { entry: AuditEntryView }) {
  const client = clientOf(entry, T.otherClient);
  if (!client) return null;
  if (!client.full) {
    return (
      <span className="block text-xs text-base-content/70" data-client>
        <span className="sr-only">{T.userAgent}</span>
        {client.short}
      </span>
    );
  }
  return (
    <details className="text-xs text-base-content/70" data-client>
      <summary className="cursor-pointer">
        <span className="sr-only">{T.userAgent}</span>
        {client.short}
      </summary>
      <span className="block break-all font-mono" data-user-agent>
        {client.full}
      </span>
    </details>
  );
}

/** An audit entry's action, what it did and where from, as both audit tables show it. */
export function AuditAction({ entry }: { entry: AuditEntryView }) {
  const details = detailsText(entry.details);
  return (
    <>
      <span className="font-mono text-xs">{entry.action}</span>
      {details && <span className="block text-xs text-base-content/70">{details}</span>}
      <Client entry={entry} />
    </>
  );
}

export function AuditTrail({ entries }: { entries: readonly AuditEntryView[] }) {
  if (entries.length === 0) return <Empty text={T.emptyAudit} />;
  const C = T.auditColumns;
  return (
    <Table caption={T.sections.audit} head={[C.at, C.who, C.action, C.reason]}>
      {entries.map((e) => (
        <tr key={e.id} data-audit-entry={e.action}>
          <td className="whitespace-nowrap tabular-nums">{dayAndTime(e.at)}</td>
          <td>{e.actor_label}</td>
          <td>
            <AuditAction entry={e} />
          </td>
          <td className="min-w-48">{e.reason ?? "—"}</td>
        </tr>
      ))}
    </Table>
  );
}
