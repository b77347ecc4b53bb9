// /admin/customers (staff only): one search field for any of the forms the API takes, the results
// as a table linking to each customer's page. The query is kept in the URL (?q=), so a search can
// be reloaded, bookmarked and shared with a colleague.
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { formatBalance } from "../../lib/account-view.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { isoDay } from "../../lib/format-date.ts";
import { $customerSearch, searchCustomers } from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { STAFF } from "./staff.ts";

if (typeof document !== "undefined") void initSession();

const T = ADMIN_PAGE_TEXT.customers;

function Results() {
  const state = useStore($customerSearch);
  return (
    <div data-customer-search data-status={state.status}>
      <ResultList />
    </div>
  );
}

function ResultList() {
  const state = useStore($customerSearch);
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
    <div className="flex flex-col gap-4" aria-busy={state.status === "loading"}>
      <Table
        caption={T.title}
        head={[C.customer, C.role, C.plan, C.balance, C.joined, C.status]}
        numeric={[3]}
      >
        {state.rows.map((row) => (
          <tr key={row.id} data-customer-row={row.id}>
            <td className="max-w-64">
              <a className="link link-primary font-medium" href={`/admin/customers/${row.id}`}>
                {row.username}
              </a>
              <span className="block truncate text-xs text-base-content/70">{row.email}</span>
              {row.org_keys?.map((key) => (
                <span key={key.prefix} className="block text-xs" data-org-key={key.org_id}>
                  {T.orgKey(key.prefix)}{" "}
                  <a className="link link-primary" href={`/admin/orgs/${key.org_id}`}>
                    {key.org_name ?? T.unnamedOrg}
                  </a>
                  . {T.orgKeySpends}
                </span>
              ))}
            </td>
            <td>{row.role}</td>
            <td>{row.plan}</td>
            <td className="text-right tabular-nums">{formatBalance(row.credit_balance)}</td>
            <td className="whitespace-nowrap">{isoDay(row.created_at)}</td>
            <td>
              {row.disabled ? (
                <span className="badge badge-error">{T.disabled}</span>
              ) : (
                <span className="badge badge-ghost">{T.active}</span>
              )}
            </td>
          </tr>
        ))}
      </Table>
      {state.nextCursor && (
        <button
          type="button"
          className="btn btn-outline self-start"
          onClick={() => void searchCustomers(state.q, true)}
          disabled={state.status === "loading"}
        >
          {T.more}
        </button>
      )}
    </div>
  );
}

function SearchForm() {
  const [q, setQ] = useState(() =>
    typeof location === "undefined" ? "" : (new URLSearchParams(location.search).get("q") ?? ""),
  );
  const inputId = useId();
  const state = useStore($customerSearch);

  // The first search runs once, with the URL's query; later ones on submit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on arrival only
  useEffect(() => {
    void searchCustomers(q);
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const url = new URL(location.href);
    if (q.trim()) url.searchParams.set("q", q.trim());
    else url.searchParams.delete("q");
    history.replaceState(null, "", url);
    void searchCustomers(q.trim());
  };

  return (
    <search>
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-1 flex-col gap-1">
          <label htmlFor={inputId} className="text-sm font-medium">
            {T.searchLabel}
          </label>
          <input
            id={inputId}
            type="search"
            name="q"
            className="input w-full"
            placeholder={T.searchPlaceholder}
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
          {T.search}
        </button>
      </form>
    </search>
  );
}

export default function CustomerSearch() {
  return (
    <StaffGuard allowedRoles={STAFF} loadingMessage="Loading…">
      {() => (
        <div className="flex flex-col gap-6">
          <SearchForm />
          <Results />
        </div>
      )}
    </StaffGuard>
  );
}
