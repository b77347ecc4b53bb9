// /admin/reports (admins): the VAT report of a chosen quarter, one table per section of the
// filing, with each section's total and the quarter's, and the CSV for the tax adviser.
import { useStore } from "@nanostores/react";
import { useEffect, useId, useState } from "react";
import type { VatLineView } from "../../../contract/admin.ts";
import { countryName } from "../../../contract/country-name.ts";
import { formatMoney } from "../../../contract/money.ts";
import { REPORTS_PAGE_TEXT } from "../../lib/admin-reports-text.ts";
import { recentQuarters } from "../../lib/quarters.ts";
import { $vatReport, downloadVatCsv, loadVatReport } from "../../stores/admin.ts";
import { initSession } from "../../stores/auth.ts";
import { notify } from "../../stores/toast.ts";
import { refusalMessage } from "./ActionDialog.tsx";
import { Section, Table } from "./ConsoleTable.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { ADMINS } from "./staff.ts";

if (typeof document !== "undefined") void initSession();

const T = REPORTS_PAGE_TEXT;
const SECTIONS = ["domestic", "oss", "reverse_charge", "non_eu", "unclassified"] as const;

function quarterFromUrl(fallback: string): string {
  if (typeof location === "undefined") return fallback;
  return new URLSearchParams(location.search).get("quarter") ?? fallback;
}

function SectionTable({ section, lines }: { section: (typeof SECTIONS)[number]; lines: VatLineView[] }) {
  const C = T.columns;
  const withRate = section === "domestic" || section === "oss" || section === "unclassified";
  const withCountry = section !== "domestic";
  const withVatId = section === "reverse_charge";
  const head = [
    ...(withCountry ? [C.country] : []),
    ...(withRate ? [C.rate] : []),
    ...(withVatId ? [C.vatId] : []),
    C.original,
    C.net,
    ...(section === "reverse_charge" || section === "non_eu" ? [] : [C.vat]),
    C.documents,
  ];
  const money = (line: VatLineView, minor: number) => formatMoney(minor, line.currency);
  const firstAmount = head.indexOf(C.net);
  return (
    <Table
      caption={T.sections[section]}
      head={head}
      numeric={head.map((_, i) => i).filter((i) => i >= firstAmount)}
    >
      {lines.map((l) => (
        <tr
          key={[l.country, l.rate, l.vat_id, l.original_quarter, l.currency].join("|")}
          data-vat-line={section}
          data-refund={l.original_quarter ? "true" : undefined}
        >
          {withCountry && <td>{l.country ? `${countryName(l.country)} (${l.country})` : "—"}</td>}
          {withRate && <td className="tabular-nums">{l.rate === null ? "—" : `${l.rate} %`}</td>}
          {withVatId && <td className="font-mono text-xs">{l.vat_id ?? "—"}</td>}
          <td>{l.original_quarter ? T.refundOf(l.original_quarter) : T.sale}</td>
          <td className="text-right tabular-nums">{money(l, l.net)}</td>
          {section !== "reverse_charge" && section !== "non_eu" && (
            <td className="text-right tabular-nums">{money(l, l.vat)}</td>
          )}
          <td className="text-right tabular-nums">{l.documents}</td>
        </tr>
      ))}
    </Table>
  );
}

function ReportView() {
  const quarters = recentQuarters(new Date(), 8);
  const state = useStore($vatReport);
  const [quarter, setQuarter] = useState(() => quarterFromUrl(quarters[0] ?? ""));
  const selectId = useId();
  useEffect(() => {
    void loadVatReport(quarter);
  }, [quarter]);
  const choose = (next: string) => {
    const url = new URL(location.href);
    url.searchParams.set("quarter", next);
    history.replaceState(null, "", url);
    setQuarter(next);
  };
  const download = async () => {
    try {
      await downloadVatCsv(quarter);
    } catch (error) {
      notify("error", refusalMessage(error));
    }
  };
  const report = state.report;
  const total = (section: string) =>
    report?.totals
      .filter((t) => t.section === section)
      .map((t) => `${formatMoney(t.net, t.currency)} net, ${formatMoney(t.vat, t.currency)} VAT`)
      .join("; ");
  return (
    <div className="flex flex-col gap-8" data-vat-report data-status={state.status}>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={selectId} className="text-sm font-medium">
            {T.quarter}
          </label>
          <select id={selectId} className="select" value={quarter} onChange={(e) => choose(e.target.value)}>
            {[...new Set([quarter, ...quarters])].map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="btn btn-outline btn-sm" onClick={() => void download()}>
          {T.download}
        </button>
      </div>
      {state.status === "failed" && (
        <p role="alert" className="alert alert-error">
          {T.failed}
        </p>
      )}
      {state.status === "loading" && !report && (
        <p role="status" className="flex items-center gap-2">
          <span className="loading loading-spinner" aria-hidden="true" />
          {T.loading}
        </p>
      )}
      {report && report.lines.length === 0 && <p className="text-base-content/80">{T.empty}</p>}
      {/* Every section of the filing, empty ones too: "none" tells an accountant that nothing was
          sold there, where a missing section would leave them asking whether it was forgotten. */}
      {report &&
        SECTIONS.map((section) => {
          const lines = report.lines.filter((l) => l.section === section);
          return (
            <Section
              key={section}
              id={`vat-${section}`}
              title={T.sections[section]}
              aside={
                lines.length > 0 && (
                  <p className="text-sm tabular-nums">
                    {T.total}: {total(section)}
                  </p>
                )
              }
            >
              {lines.length > 0 ? (
                <SectionTable section={section} lines={lines} />
              ) : (
                <p className="text-sm text-base-content/70" data-vat-none={section}>
                  {T.noneThisQuarter}
                </p>
              )}
            </Section>
          );
        })}
      {report && report.lines.length > 0 && (
        <p className="font-semibold tabular-nums" data-vat-total>
          {T.quarterTotal} {report.quarter}: {total("all")}
        </p>
      )}
    </div>
  );
}

export default function VatReport() {
  return (
    <StaffGuard allowedRoles={ADMINS} loadingMessage={T.loading}>
      {() => <ReportView />}
    </StaffGuard>
  );
}
