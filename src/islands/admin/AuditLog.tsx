// /admin/audit (admins): the audit log, newest first, with filters (actor, subject, action, time)
// kept in the URL, and the filtered log as a CSV download.
import { useStore } from "@nanostores/react";
import { type FormEvent, Fragment, useEffect, useId, useRef, useState } from "react";
import type { AuditEntryView } from "../../../contract/admin.ts";
import { AUDIT_PAGE_TEXT } from "../../lib/admin-audit-text.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import {
  $auditLog,
  type AuditFilter,
  type AuditState,
  downloadAuditCsv,
  EMPTY_AUDIT_FILTER,
  loadAuditLog,
} from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";
import { refusalMessage } from "./ActionDialog.tsx";
import { AuditAction } from "./AuditEntries.tsx";
import { Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { ADMINS } from "./staff.ts";

if (typeof document !== "undefined") void initSession();

const T = AUDIT_PAGE_TEXT;
const FIELDS = ["actor", "subject", "action", "from", "to"] as const;

function filterFromUrl(): AuditFilter {
  if (typeof location === "undefined") return EMPTY_AUDIT_FILTER;
  const params = new URLSearchParams(location.search);
  return Object.fromEntries(FIELDS.map((f) => [f, params.get(f) ?? ""])) as unknown as AuditFilter;
}

/** An example of each field's value. */
const PLACEHOLDERS: Partial<Record<keyof AuditFilter, string>> = {
  actor: T.namePlaceholder,
  subject: T.namePlaceholder,
  action: "credits.",
  from: "2026-11-01",
  to: "2026-12-01",
};

function Filters({
  onApply,
  errors,
}: {
  onApply: (filter: AuditFilter) => void;
  /** The API's word on a field it refused (an unknown name, a time that is not ISO 8601). */
  errors: AuditState["fieldErrors"];
}) {
  const [filter, setFilter] = useState<AuditFilter>(filterFromUrl);
  const base = useId();
  const form = useRef<HTMLFormElement>(null);
  // A refused filter: the keyboard goes to the first field the API named, beside its message,
  // scrolled to the middle of the screen (the sticky header would hide its label at the top).
  useEffect(() => {
    if (Object.keys(errors).length === 0) return;
    const invalid = form.current?.querySelector<HTMLElement>("[aria-invalid='true']");
    invalid?.focus({ preventScroll: true });
    invalid?.scrollIntoView({ block: "center" });
  }, [errors]);
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
    <form
      ref={form}
      onSubmit={submit}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5"
      aria-label={T.filters}
    >
      {FIELDS.map((field) => {
        const id = `${base}-${field}`;
        const error = errors[field];
        return (
          <div key={field} className="flex flex-col gap-1">
            <label htmlFor={id} className="text-sm font-medium">
              {labels[field]}
            </label>
            <input
              id={id}
              name={field}
              // Days as the console writes them (2026-11-24), not the browser's locale's date
              // picker (11/24/2026 in en-US); the API also takes a time and says what is wrong.
              type="text"
              className={error ? "input input-sm input-error w-full" : "input input-sm w-full"}
              value={filter[field]}
              onChange={(e) => setFilter({ ...filter, [field]: e.target.value })}
              placeholder={PLACEHOLDERS[field]}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
            />
            {error && <FieldError id={`${id}-error`} name={field} message={error} />}
          </div>
        );
      })}
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

/** Whom an entry is about, by name (the id only for a row the users table no longer has). */
function Subject({ entry }: { entry: AuditEntryView }) {
  const id = entry.subject_user_id;
  if (!id) return "—";
  return (
    <>
      <a className="link link-primary break-words" href={`/admin/customers/${id}`} data-subject>
        {entry.subject_username ?? <span className="font-mono text-xs">{id}</span>}
      </a>
      {entry.subject_email && (
        <span className="block text-xs text-base-content/70 break-words">
          {/* A line may break before the "@" rather than inside the name or the domain. */}
          {entry.subject_email.split("@").map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one address, in order
            <Fragment key={i}>
              {i > 0 && (
                <>
                  <wbr />@
                </>
              )}
              {part}
            </Fragment>
          ))}
        </span>
      )}
    </>
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
      <Filters onApply={apply} errors={state.fieldErrors} />
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
                <Subject entry={e} />
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
