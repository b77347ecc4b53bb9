// The account menu's organisation part, loaded when the menu first opens (public pages' budget):
// for a member of a team organisation, the switcher (Personal and each organisation with the
// role, the current one marked) and the current team organisation's pages.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import type { UserOrganization } from "../../../contract/account.ts";
import { ORG_PAGE_TEXT } from "../../lib/org-text.ts";
import { orgName, pathAfterSwitch, seesSettings } from "../../lib/org-view.ts";
import { ROLE_NAMES } from "../../lib/role-text.ts";
import { $organizations, loadOrganizations, switchOrganization } from "../../stores/organizations.ts";

const T = ORG_PAGE_TEXT;

interface Props {
  variant: "desktop" | "mobile";
  /** The organisation the page acts on (GET /v1/users/me's). */
  current: UserOrganization | undefined;
}

/**
 * The chosen organisation's row, the same in both themes and both menus: a primary tint, an edge
 * in primary (3:1 and more against the menu in either theme) and the check in primary. daisyUI's
 * own mark for `aria-current` (the neutral colour) is nearly the dark menu's background, and it
 * drops the focus outline: given back here.
 */
const SELECTED =
  "bg-primary/15 text-base-content ring-1 ring-primary ring-inset focus-visible:outline-2 focus-visible:outline-solid focus-visible:outline-primary";

function Check() {
  return (
    <svg
      className="size-4 shrink-0 text-primary"
      viewBox="0 0 16 16"
      fill="none"
      aria-hidden="true"
      focusable="false"
    >
      <path d="m3.5 8.5 3 3 6-7" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" />
    </svg>
  );
}

export default function OrgMenu({ variant, current }: Props) {
  const { status, orgs } = useStore($organizations);
  const [switching, setSwitching] = useState<string | null>(null);
  useEffect(() => {
    void loadOrganizations();
  }, []);

  const inTeam = current !== undefined && !current.personal;
  // Only a member of a team organisation has anything to switch between.
  if (status !== "ready" || !(inTeam || orgs.some((org) => !org.personal))) return null;
  const currentId = current?.id ?? orgs.find((org) => org.personal)?.id;

  const choices = orgs.map((org) => {
    const selected = org.id === currentId;
    return (
      <li key={org.id}>
        <button
          type="button"
          className={`${
            variant === "desktop"
              ? "justify-between gap-2"
              : "btn btn-sm btn-ghost h-auto min-h-8 w-full justify-between py-1"
          }${selected ? ` ${SELECTED}` : ""}`}
          aria-current={selected ? "true" : undefined}
          disabled={switching !== null}
          data-org-choice={org.personal ? "personal" : org.id}
          onClick={() => {
            if (selected) return;
            setSwitching(org.id);
            switchOrganization(org, pathAfterSwitch(window.location.pathname) ?? undefined);
          }}
        >
          <span className="flex min-w-0 items-center gap-1.5">
            {selected ? <Check /> : <span className="size-4 shrink-0" />}
            {/* Cut short on the desktop menu (whole on hover); whole on the phone, where nothing hovers. */}
            <span
              className={variant === "desktop" ? "truncate" : "text-left wrap-anywhere"}
              title={orgName(org)}
            >
              {orgName(org)}
            </span>
            {selected && <span className="sr-only"> ({T.current})</span>}
          </span>
          <span className="badge badge-ghost badge-sm shrink-0">
            {switching === org.id ? T.switching : ROLE_NAMES[org.role]}
          </span>
        </button>
      </li>
    );
  });
  // The desktop menu styles its rows itself; the phone's are buttons that grow with a wrapped label.
  const pageLink = variant === "desktop" ? undefined : "btn btn-sm btn-outline h-auto min-h-8 w-full py-1";
  const pages = inTeam && (
    <>
      <li>
        <a href="/org/members" className={pageLink}>
          {T.members}
        </a>
      </li>
      {seesSettings(current.role) && (
        <li>
          <a href="/org/settings" className={pageLink}>
            {T.settings}
          </a>
        </li>
      )}
    </>
  );

  if (variant === "mobile") {
    return (
      <div className="col-span-2 flex flex-col gap-1 border-b border-base-300 pb-2" data-org-switcher>
        <p className="text-xs font-semibold tracking-wide text-base-content/80 uppercase">
          {T.switcherTitle}
        </p>
        <ul className="flex flex-col gap-1">{choices}</ul>
        {pages && <ul className="grid grid-cols-2 gap-2 pt-1">{pages}</ul>}
      </div>
    );
  }
  return (
    <>
      <li className="menu-title text-base-content/80" data-org-switcher>
        {T.switcherTitle}
      </li>
      {choices}
      {pages}
      <li aria-hidden="true" className="my-1 border-t border-base-300" />
    </>
  );
}
