// Audit entries as the console shows them: on the customer page's trail and on /admin/audit.
import type { AuditEntryView } from "../../../contract/admin.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { Table } from "./ConsoleTable.tsx";

const T = ADMIN_PAGE_TEXT.customer;

const Empty = ({ text }: { text: string }) => <p className="text-sm text-base-content/70">{text}</p>;

/** An audit entry's action and what it did, as both audit tables show it. */
export function AuditAction({ entry }: { entry: AuditEntryView }) {
  return (
    <>
      <span className="font-mono text-xs">{entry.action}</span>
      <span className="block text-xs text-base-content/70">{detailsText(entry.details)}</span>
    </>
  );
}

/** Details that are plumbing rather than news to a reader (they stay in the CSV). */
const QUIET_DETAILS = new Set(["idempotency_key", "description", "grant_id", "takes"]);

/** An audit entry's details as short "key: value" text (never secrets: the server keeps none there). */
export function detailsText(details: Record<string, unknown>): string {
  if (typeof details.from === "string" && typeof details.to === "string")
    return `${details.from} → ${details.to}`;
  return Object.entries(details)
    .filter(([key, value]) => !QUIET_DETAILS.has(key) && value !== null)
    .map(
      ([key, value]) =>
        `${key.replaceAll("_", " ")}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`,
    )
    .join("; ");
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
