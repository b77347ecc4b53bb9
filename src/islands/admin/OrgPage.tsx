// /admin/orgs/{id} (staff only): one prebuilt page that reads the id from the URL and shows the
// organisation "as for a customer": its state, owners, plan and balance, the actions the viewer may
// take, its members (an admin makes one an owner), then the credits and ledger, payments, usage by
// member, API keys and audit trail as tabs. Staff who are members of it are told they cannot act.
import { useStore } from "@nanostores/react";
import { lazy, type ReactNode, Suspense, useEffect, useState } from "react";
import type { User } from "../../../contract/account.ts";
import type { AdminOrg, AdminOrgMember } from "../../../contract/admin-orgs.ts";
import { memberGroupLabel } from "../../../contract/usage-members.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { mayMakeOwner, type OrgActionKind, orgActionsFor } from "../../lib/admin-org-actions.ts";
import { ADMIN_ORG_PAGE_TEXT } from "../../lib/admin-org-text.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { readStoredToken } from "../../lib/auth-storage.ts";
import { DANGER } from "../../lib/danger-button.ts";
import { dayAndTime, isoDay } from "../../lib/format-date.ts";
import { routeParam } from "../../lib/route-param.ts";
import { tokenRole } from "../../lib/token-expiry.ts";
import { $adminOrg, loadAdminOrg } from "../../stores/admin-org.ts";
import { initSession } from "../../stores/auth.ts";
import { AuditTrail } from "./AuditEntries.tsx";
import { Section, Table } from "./ConsoleTable.tsx";
import { Ledger, Payments } from "./CustomerSections.tsx";
import { StaffGuard } from "./StaffGuard.tsx";
import { STAFF } from "./staff.ts";
import { type Tab, Tabs } from "./Tabs.tsx";

const T = ADMIN_ORG_PAGE_TEXT;
const inBrowser = typeof document !== "undefined";
const PREFIX = "/admin/orgs/";
const orgIdFromUrl = () => (inBrowser ? routeParam(location.pathname, PREFIX) : "");

if (inBrowser) {
  void initSession();
  const id = orgIdFromUrl();
  const role = tokenRole(readStoredToken());
  if (id && (role === "support" || role === "admin")) void loadAdminOrg(id);
}

// The action dialogs load when staff first open one, as the customer page's do: most visits only
// read the page.
const loadDialogs = () => import("./OrgActions.tsx");
const OrgActionDialog = lazy(() => loadDialogs().then((m) => ({ default: m.OrgActionDialog })));
const MakeOwnerDialog = lazy(() => loadDialogs().then((m) => ({ default: m.MakeOwnerDialog })));

// Auto top-up's panel is its own chunk (the page is near its JavaScript budget).
const OrgAutoTopUp = lazy(() => import("./OrgAutoTopUp.tsx"));

const DANGEROUS = new Set<OrgActionKind>(["takeBack", "disable", "cancelNow"]);

/** The name staff read: a team's name, or "Personal (owner)". */
const orgName = (org: AdminOrg) =>
  org.name ?? T.personalOf(org.owners.map((o) => o.username).join(", ") || org.id);

const Empty = ({ text }: { text: string }) => <p className="text-sm text-base-content/70">{text}</p>;

function Overview({ org }: { org: AdminOrg }) {
  const F = T.facts;
  const sub = org.subscription;
  const details = org.billing_details;
  const facts: Array<[string, ReactNode]> = [
    [F.kind, org.personal ? T.personal : T.team],
    [
      F.owners,
      org.owners.map((o, i) => (
        <span key={o.id}>
          {i > 0 && ", "}
          <a className="link" href={`/admin/customers/${o.id}`}>
            {o.username}
          </a>
        </span>
      )),
    ],
    [F.members, String(org.member_count)],
    [F.plan, `${sub.plan}${sub.status !== "free" ? ` (${sub.status})` : ""}`],
    [
      F.balance,
      <span key="balance" data-org-balance>
        {formatBalance(org.credit_balance)}
      </span>,
    ],
    [F.created, isoDay(org.created_at)],
    [
      F.billing,
      details ? [details.name, details.country, details.vat_id].filter(Boolean).join(", ") || F.none : F.none,
    ],
  ];
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-4" data-org-overview>
      {facts.map(([label, value]) => (
        <div key={label} className="flex min-w-0 flex-col">
          <dt className="text-xs text-base-content/70">{label}</dt>
          <dd className="break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Members({
  members,
  ownerAction,
}: {
  members: readonly AdminOrgMember[];
  ownerAction: (m: AdminOrgMember) => ReactNode;
}) {
  if (members.length === 0) return <Empty text={T.noMembers} />;
  const C = T.memberColumns;
  return (
    <Table
      caption={T.sections.members}
      head={[
        C.member,
        C.email,
        C.role,
        C.cap,
        C.spent,
        C.joined,
        <span key="a" className="sr-only">
          {C.action}
        </span>,
      ]}
      numeric={[3, 4]}
      actionColumn={6}
    >
      {members.map((m) => (
        <tr key={m.user_id} data-org-member={m.username}>
          <td>
            <a className="link" href={`/admin/customers/${m.user_id}`}>
              {m.username}
            </a>
          </td>
          <td className="break-all">{m.email}</td>
          <td data-member-role>{m.role}</td>
          <td className="text-right tabular-nums">
            {m.monthly_credit_cap === null ? T.noCap : formatBalance(m.monthly_credit_cap)}
          </td>
          <td className="text-right tabular-nums">{formatBalance(m.spent_this_month)}</td>
          <td className="tabular-nums">{isoDay(m.joined_at)}</td>
          <td>{ownerAction(m)}</td>
        </tr>
      ))}
    </Table>
  );
}

function Keys({ org, members }: { org: AdminOrg; members: readonly AdminOrgMember[] }) {
  if (org.api_keys.length === 0) return <Empty text={ADMIN_PAGE_TEXT.customer.emptyKeys} />;
  const C = T.keyColumns;
  const names = new Map(members.map((m) => [m.user_id, m.username]));
  return (
    <Table caption={T.sections.keys} head={[C.key, C.madeBy, C.usage, C.status]} numeric={[2]}>
      {org.api_keys.map((k) => (
        <tr key={k.id} data-org-key={k.prefix}>
          <td>
            {k.name} <span className="font-mono text-xs">{k.prefix}…</span>
          </td>
          <td>{k.shared ? T.shared : ((k.created_by && names.get(k.created_by)) ?? k.created_by ?? "")}</td>
          <td className="text-right tabular-nums">{formatBalance(k.credits_used_this_month)}</td>
          <td>{k.revoked_at ? ADMIN_PAGE_TEXT.customer.revoked : ADMIN_PAGE_TEXT.customer.live}</td>
        </tr>
      ))}
    </Table>
  );
}

function UsageByMember() {
  const state = useStore($adminOrg);
  if (state.usage.length === 0) return <Empty text={T.emptyUsage} />;
  const C = T.usageColumns;
  return (
    <div>
      <p className="mb-2 text-sm text-base-content/70">{T.usagePeriod}</p>
      <Table caption={T.sections.usage} head={[C.member, C.uses, C.credits]} numeric={[1, 2]}>
        {state.usage.map((row) => (
          <tr key={`${row.member_group}-${row.member_id ?? ""}`} data-org-usage={row.member_group}>
            <td>{memberGroupLabel(row.member_group ?? "without_key", row.member_username)}</td>
            <td className="text-right tabular-nums">{formatBalance(row.uses)}</td>
            <td className="text-right tabular-nums">{formatBalance(row.credits)}</td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

function OrgView({ viewer, org }: { viewer: User; org: AdminOrg }) {
  const state = useStore($adminOrg);
  const [action, setAction] = useState<OrgActionKind | null>(null);
  const [promoting, setPromoting] = useState<AdminOrgMember | null>(null);
  // Once a dialog was opened its code stays mounted, so closing it can finish as it should.
  const [dialogsUsed, setDialogsUsed] = useState(false);
  const anyOpen = action !== null || promoting !== null;
  useEffect(() => {
    if (anyOpen) setDialogsUsed(true);
  }, [anyOpen]);
  const viewerIsMember = state.members.some((m) => m.user_id === viewer.id);
  const actions = orgActionsFor(viewer.role, viewerIsMember, org);
  const name = orgName(org);
  const S = T.sections;
  const tabs: Tab[] = [
    { id: "org-ledger", label: S.ledger, panel: <Ledger lines={state.ledger} /> },
    { id: "org-payments", label: S.payments, panel: <Payments payments={state.payments} /> },
    { id: "org-usage", label: S.usage, panel: <UsageByMember /> },
    { id: "org-keys", label: S.keys, panel: <Keys org={org} members={state.members} /> },
    { id: "org-audit", label: S.audit, panel: <AuditTrail entries={state.audit} /> },
  ];
  return (
    <div className="flex flex-col gap-8" data-org={org.id}>
      <header className="flex flex-col gap-3">
        <a href="/admin/orgs" className="link text-sm">
          ← {T.backToOrgs}
        </a>
        <h2 className="text-2xl font-bold sm:text-3xl" data-org-name>
          {name}
        </h2>
        {org.deleted_at && (
          <p role="status" className="alert alert-warning" data-deleted-banner>
            {T.deletedBanner(dayAndTime(org.deleted_at) ?? "")}
          </p>
        )}
        {org.disabled_at && (
          <p role="status" className="alert alert-error" data-disabled-banner>
            {T.disabledBanner(dayAndTime(org.disabled_at) ?? "")}
          </p>
        )}
        {org.dispute_hold_at && (
          <p role="status" className="alert alert-warning" data-dispute-hold-banner>
            {T.disputeHoldBanner(dayAndTime(org.dispute_hold_at) ?? "")}
          </p>
        )}
        {viewerIsMember && (
          <p role="status" className="alert alert-info" data-member-notice>
            {T.memberNotice}
          </p>
        )}
      </header>
      {actions.length > 0 && (
        <Section id="org-actions" title={S.actions}>
          <div className="flex flex-wrap gap-2" data-org-actions>
            {actions.map((kind) => (
              <button
                key={kind}
                type="button"
                className={`btn btn-sm btn-outline ${DANGEROUS.has(kind) ? DANGER : ""}`}
                onClick={() => setAction(kind)}
                data-action={kind}
              >
                {T.actions[kind]}
              </button>
            ))}
          </div>
        </Section>
      )}
      <Section id="org-overview" title={S.overview}>
        <Overview org={org} />
      </Section>
      <Suspense fallback={<div className="min-h-24" />}>
        <OrgAutoTopUp
          org={org}
          name={name}
          mayAct={viewer.role === "admin" && !viewerIsMember && org.deleted_at === null}
        />
      </Suspense>
      <Section id="org-members" title={S.members}>
        <Members
          members={state.members}
          ownerAction={(m) =>
            mayMakeOwner(viewer, viewerIsMember, org, m) ? (
              <button
                type="button"
                className="btn btn-outline btn-xs"
                onClick={() => setPromoting(m)}
                aria-label={`${T.actions.makeOwner}: ${m.username}`}
                data-make-owner={m.username}
              >
                {T.actions.makeOwner}
              </button>
            ) : null
          }
        />
      </Section>
      <Tabs label={T.partsLabel(name)} tabs={tabs} />
      {(anyOpen || dialogsUsed) && (
        <Suspense fallback={null}>
          <OrgActionDialog kind={action} org={org} onClose={() => setAction(null)} />
          <MakeOwnerDialog org={org} member={promoting} onClose={() => setPromoting(null)} />
        </Suspense>
      )}
    </div>
  );
}

function Loaded({ viewer }: { viewer: User }) {
  const state = useStore($adminOrg);
  useEffect(() => {
    if (state.status === "idle") {
      const id = orgIdFromUrl();
      if (id) void loadAdminOrg(id);
    }
  }, [state.status]);
  if (state.status === "missing" || (inBrowser && !orgIdFromUrl())) {
    return (
      <p role="alert" className="alert alert-warning" data-org-missing>
        {T.notFound}{" "}
        <a href="/admin/orgs" className="link">
          {T.backToOrgs}
        </a>
      </p>
    );
  }
  if (state.status === "failed") {
    return (
      <p role="alert" className="alert alert-error">
        {T.failed}
      </p>
    );
  }
  if (!state.org) {
    return (
      <p role="status" className="flex items-center gap-2">
        <span className="loading loading-spinner" aria-hidden="true" />
        {T.loading}
      </p>
    );
  }
  return <OrgView viewer={viewer} org={state.org} />;
}

export default function OrgPage() {
  return (
    <StaffGuard allowedRoles={STAFF} loadingMessage={T.loading}>
      {(viewer) => <Loaded viewer={viewer} />}
    </StaffGuard>
  );
}
