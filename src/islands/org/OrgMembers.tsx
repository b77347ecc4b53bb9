// /org/members (guarded like /profile): the chosen team organisation's members with role, monthly
// cap and this month's spend; for owners and managers the invitation form, the pending
// invitations (resend, revoke), and each member's role, cap and removal as the role tables allow
// (contract/org-roles.ts): what the viewer's role may not do is not offered.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import type { User, UserOrganization } from "../../../contract/account.ts";
import { can } from "../../../contract/org-roles.ts";
import type { Member } from "../../../contract/orgs.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { DANGER_OUTLINE } from "../../lib/danger-button.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import { type MemberOffer, memberOffer, nextBerlinMonthStart, orgName } from "../../lib/org-view.ts";
import { ROLE_NAMES } from "../../lib/role-text.ts";
import { initSession } from "../../stores/auth.ts";
import { $members, loadMembers } from "../../stores/organizations.ts";
import { ReauthDialog } from "../auth/ReauthDialog.tsx";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { Invitations } from "./Invitations.tsx";
import { EditMemberDialog, RemoveMemberDialog } from "./MemberDialogs.tsx";
import { PersonalNotice } from "./PersonalNotice.tsx";

// The members are this page's content: ask for the session as soon as the module runs (see Profile).
if (typeof document !== "undefined") void initSession();

const T = ORG_PAGE_TEXT;
const C = T.columns;

const capText = (cap: number | null) => (cap === null ? T.noCap : `${formatBalance(cap)} credits`);

function MemberRow({
  member,
  self,
  offer,
  onEdit,
  onRemove,
}: {
  member: Member;
  self: boolean;
  offer: MemberOffer;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const facts: Array<[string, string]> = [[C.role, ROLE_NAMES[member.role]]];
  // Left out by the API where the viewer's role sees only its own usage (a developer, of others).
  if (member.spent_this_month !== undefined) {
    facts.push([C.cap, capText(member.monthly_credit_cap ?? null)]);
    facts.push([C.spent, `${formatBalance(member.spent_this_month)} credits`]);
  }
  const editable = offer.roles.length > 0 || offer.cap;
  return (
    <li className="card border border-base-300 bg-base-100" data-member={member.username}>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            <h3 className="truncate font-semibold">
              {member.username}
              {self && <span className="font-normal text-base-content/70"> ({T.you})</span>}
            </h3>
            {member.email && <p className="break-all text-sm text-base-content/80">{member.email}</p>}
          </div>
          <div className="flex flex-wrap gap-2">
            {editable && (
              <button
                type="button"
                className="btn btn-outline btn-sm"
                onClick={onEdit}
                aria-label={`${T.edit} ${member.username}`}
              >
                {T.edit}
              </button>
            )}
            {offer.remove && (
              <button
                type="button"
                className={`${DANGER_OUTLINE} btn-sm`}
                onClick={onRemove}
                aria-label={self ? T.leave : `${T.remove} ${member.username}`}
              >
                {self ? T.leave : T.remove}
              </button>
            )}
          </div>
        </div>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-3">
          {facts.map(([label, value]) => (
            <div key={label} className="flex flex-col">
              <dt className="text-xs text-base-content/70">{label}</dt>
              <dd className="tabular-nums" data-member-fact={label}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </li>
  );
}

function MembersView({ user, org }: { user: User; org: UserOrganization }) {
  const state = useStore($members);
  const manages = can(org.role, "manageMembers");
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  useEffect(() => {
    void loadMembers(org.id, manages);
  }, [org.id, manages]);

  const ownerCount = state.members.filter((m) => m.role === "owner").length;
  const actor = { userId: user.id, role: org.role };
  const offerFor = (m: Member) => memberOffer(actor, { userId: m.user_id, role: m.role }, ownerCount);
  // The server's month: `spent_this_month` counts it, so the caps reset at its end.
  const resets = dayAndTime(nextBerlinMonthStart(new Date(Date.now() + (state.clockOffsetMs ?? 0)))) ?? "";
  const name = orgName(org);

  return (
    <div className="flex flex-col gap-8" data-org-members data-status={state.status}>
      <section aria-labelledby="members-heading" className="flex flex-col gap-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="members-heading" className="text-lg font-semibold">
            {T.membersOf(name)}
          </h2>
          {state.status === "ready" && (
            <p className="text-sm text-base-content/80">{T.memberCount(state.members.length)}</p>
          )}
        </div>
        <p className="text-sm text-base-content/80">{T.monthNote(resets)}</p>
        {state.status === "failed" && (
          <div role="alert" className="alert alert-error">
            <span>{T.loadFailed}</span>
            <button type="button" className="btn btn-sm" onClick={() => void loadMembers(org.id, manages)}>
              {T.retry}
            </button>
          </div>
        )}
        {state.status === "loading" && state.members.length === 0 && (
          <p className="flex items-center gap-2 text-sm" role="status">
            <span className="loading loading-spinner loading-sm" aria-hidden="true" />
            {T.loading}
          </p>
        )}
        {state.members.length > 0 && (
          <ul className="flex flex-col gap-3" aria-label={T.membersTitle}>
            {state.members.map((member) => (
              <MemberRow
                key={member.user_id}
                member={member}
                self={member.user_id === user.id}
                offer={offerFor(member)}
                onEdit={() => setEditing(member)}
                onRemove={() => setRemoving(member)}
              />
            ))}
          </ul>
        )}
      </section>
      {manages && <Invitations org={org} invitations={state.invitations} ready={state.status === "ready"} />}
      <EditMemberDialog
        org={org}
        member={editing}
        offer={editing ? offerFor(editing) : null}
        withInvitations={manages}
        onClose={() => setEditing(null)}
      />
      <RemoveMemberDialog
        org={org}
        member={removing}
        self={removing?.user_id === user.id}
        withInvitations={manages}
        onClose={() => setRemoving(null)}
      />
      <ReauthDialog />
    </div>
  );
}

export default function OrgMembers() {
  return (
    <RouteGuard loadingMessage={T.loading}>
      {(user) =>
        user.organization && !user.organization.personal ? (
          <MembersView user={user} org={user.organization} />
        ) : (
          <PersonalNotice />
        )
      }
    </RouteGuard>
  );
}
