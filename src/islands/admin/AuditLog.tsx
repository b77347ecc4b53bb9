// /admin/audit (admins): the audit log, newest first, with filters (actor, subject, action, time)
// kept in the URL, and the filtered log as a CSV download.
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import {
  $auditLog,
  type AuditFilter,
  downloadAuditCsv,
  EMPTY_AUDIT_FILTER,
  loadAuditLog,
} from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { notify } from "../../stores/toast.ts";
import { refusalMessage } from "./ActionDialog.tsx";
import { AuditAction } from "./AuditEntries.tsx";
import { Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { ADMINS } from "./staff.ts";

if (typeof document !== "undefined") void initSession();

const T = ADMIN_PAGE_TEXT.audit;
const FIELDS = ["actor", "subject", "action", "from", "to"] as const;

function filterFromUrl(): AuditFilter {
  if (typeof location === "undefined") return EMPTY_AUDIT_FILTER;
  const params = new URLSearchParams(location.search);
  return Object.fromEntries(FIELDS.map((f) => [f, params.get(f) ?? ""])) as unknown as AuditFilter;
}

function Filters({ onApply }: { onApply: (filter: AuditFilter) => void }) {
  const [filter, setFilter] = useState<AuditFilter>(filterFromUrl);
  const base = useId();
  const labels: Record<keyof AuditFilter, string> = {
    actor: T.actor,
    subject: T.subject,
    action: T.action,
    from: T.from,
    to: T.to,
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(filter);
  };
  return (
    <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5" aria-label={T.filters}>
      {FIELDS.map((field) => (
        <div key={field} className="flex flex-col gap-1">
          <label htmlFor={`${base}-${field}`} className="text-sm font-medium">
            {labels[field]}
          </label>
          <input
            id={`${base}-${field}`}
            name={field}
            type={field === "from" || field === "to" ? "date" : "text"}
            className="input input-sm w-full"
            value={filter[field]}
            onChange={(e) => setFilter({ ...filter, [field]: e.target.value })}
            {...(field === "action" ? { placeholder: "credits." } : {})}
            spellCheck={false}
            autoComplete="off"
          />
        </div>
      ))}
      <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-5">
        <button type="submit" className="btn btn-primary btn-sm">
          {T.apply}
        </button>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => {
            setFilter(EMPTY_AUDIT_FILTER);
            onApply(EMPTY_AUDIT_FILTER);
          }}
        >
          {T.reset}
        </button>
      </div>
    </form>
  );
}

function AuditView() {
  const state = useStore($auditLog);
  const [downloading, setDownloading] = useState(false);
  useEffect(() => {
    void loadAuditLog(filterFromUrl());
  }, []);
  const apply = (filter: AuditFilter) => {
    const url = new URL(location.href);
    for (const field of FIELDS) {
      if (filter[field]) url.searchParams.set(field, filter[field]);
      else url.searchParams.delete(field);
    }
    history.replaceState(null, "", url);
    void loadAuditLog(filter);
  };
  const download = async () => {
    setDownloading(true);
    try {
      await downloadAuditCsv(state.filter);
    } catch (error) {
      notify("error", refusalMessage(error));
    } finally {
      setDownloading(false);
    }
  };
  const C = T.columns;
  return (
    <div className="flex flex-col gap-6" data-audit-log data-status={state.status}>
      <Filters onApply={apply} />
      <div className="flex justify-end">
        <button
          type="button"
          className="btn btn-outline btn-sm"
          onClick={() => void download()}
          disabled={downloading}
        >
          {T.download}
        </button>
      </div>
      {state.status === "failed" && (
        <p role="alert" className="alert alert-error">
          {ADMIN_PAGE_TEXT.customers.failed}
        </p>
      )}
      {state.status === "ready" && state.entries.length === 0 && (
        <p className="text-base-content/80">{T.none}</p>
      )}
      {state.entries.length > 0 && (
        <Table caption={T.title} head={[C.at, C.actor, C.action, C.subject, C.reason]}>
          {state.entries.map((e) => (
            <tr key={e.id} data-audit-row={e.action}>
              <td className="whitespace-nowrap tabular-nums">{dayAndTime(e.at)}</td>
              <td>{e.actor_label}</td>
              <td>
                <AuditAction entry={e} />
              </td>
              <td>
                {e.subject_user_id ? (
                  <a
                    className="link link-primary font-mono text-xs"
                    href={`/admin/customers/${e.subject_user_id}`}
                  >
                    {e.subject_user_id.slice(0, 8)}…
                  </a>
                ) : (
                  "—"
                )}
              </td>
              <td className="min-w-48">{e.reason ?? "—"}</td>
            </tr>
          ))}
        </Table>
      )}
      {state.nextCursor && (
        <button
          type="button"
          className="btn btn-outline btn-sm self-start"
          disabled={state.status === "loading"}
          onClick={() => void loadAuditLog(state.filter, true)}
        >
          {T.more}
        </button>
      )}
    </div>
  );
}

export default function AuditLog() {
  return (
    <StaffGuard allowedRoles={ADMINS} loadingMessage="Loading the audit log…">
      {() => <AuditView />}
    </StaffGuard>
  );
}
