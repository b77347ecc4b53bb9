// /admin/orgs (staff only): one search field for the forms GET /v1/admin/orgs takes, the results as
// a table linking to each organisation's page. The query is kept in the URL (?q=), as on
// /admin/customers, so a search can be reloaded and shared.
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { formatBalance } from "../../lib/account-view.ts";
import { ADMIN_ORG_PAGE_TEXT } from "../../lib/admin-org-text.ts";
import { $orgSearch, searchOrgs } from "../../stores/admin-org.ts";
import { initSession } from "../../stores/auth.ts";
import { Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { STAFF } from "./staff.ts";

if (typeof document !== "undefined") void initSession();

const O = ADMIN_ORG_PAGE_TEXT;
const T = O.search;

function Results() {
  const state = useStore($orgSearch);
  if (state.status === "failed") {
    return (
      <p role="alert" className="alert alert-error">
        {T.failed}
      </p>
    );
  }
  if (state.status === "ready" && state.rows.length === 0) {
    return (
      <p className="text-base-content/80" data-no-results>
        {T.none}
      </p>
    );
  }
  const C = T.columns;
  return (
    <div aria-busy={state.status === "loading"}>
      <Table
        caption={T.title}
        head={[C.organisation, C.owners, C.plan, C.balance, C.members, C.status]}
        numeric={[3, 4]}
      >
        {state.rows.map((row) => {
          const owners = row.owners.map((o) => o.username).join(", ");
          return (
            <tr key={row.id} data-org-row={row.id}>
              <td>
                <a className="link link-primary font-medium" href={`/admin/orgs/${row.id}`}>
                  {row.name ?? O.personalOf(owners)}
                </a>
              </td>
              <td>{owners}</td>
              <td>{row.plan}</td>
              <td className="text-right tabular-nums">{formatBalance(row.credit_balance)}</td>
              <td className="text-right tabular-nums">{row.member_count}</td>
              <td>
                {row.deleted ? (
                  <span className="badge badge-warning">{T.deleted}</span>
                ) : (
                  <span className="badge badge-ghost">{T.active}</span>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
    </div>
  );
}

function SearchForm() {
  const [q, setQ] = useState(() =>
    typeof location === "undefined" ? "" : (new URLSearchParams(location.search).get("q") ?? ""),
  );
  const inputId = useId();
  const state = useStore($orgSearch);

  // The first search runs once, with the URL's query; later ones on submit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on arrival only
  useEffect(() => {
    void searchOrgs(q.trim());
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const url = new URL(location.href);
    if (q.trim()) url.searchParams.set("q", q.trim());
    else url.searchParams.delete("q");
    history.replaceState(null, "", url);
    void searchOrgs(q.trim());
  };

  return (
    <search>
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-1 flex-col gap-1">
          <label htmlFor={inputId} className="text-sm font-medium">
            {T.label}
          </label>
          <input
            id={inputId}
            type="search"
            name="q"
            className="input w-full"
            placeholder={T.placeholder}
            value={q}
            onChange={(e) => setQ(e.target.value)}
            maxLength={200}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={state.status === "loading"}>
          {state.status === "loading" && (
            <span className="loading loading-spinner loading-sm" aria-hidden="true" />
          )}
          {T.submit}
        </button>
      </form>
    </search>
  );
}

export default function OrgSearch() {
  const state = useStore($orgSearch);
  return (
    <StaffGuard allowedRoles={STAFF} loadingMessage="Loading…">
      {() => (
        <div className="flex flex-col gap-6" data-org-search data-status={state.status}>
          <SearchForm />
          <Results />
        </div>
      )}
    </StaffGuard>
  );
}
