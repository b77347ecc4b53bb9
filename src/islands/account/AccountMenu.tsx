// The top bar's account area for a user (a visitor's Log In and Register are the bar's own HTML): the credit balance
// (tooltip 'Your credit balance'; a dispute hold's mark beside it, a chunk loaded only then) and
// 'Hi, {name}' with a menu (My Account, Sign Out). The mobile variant shows the same inside the
// mobile menu. The organisation switcher loads when the menu first opens: most visitors never need
// it, and every page carries this island.
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { makesKeys, seesBilling } from "../../../contract/account-area.ts";
import { formatBalance, onDisputeHold } from "../../lib/account-view.ts";
import { navigate } from "../../lib/navigation.ts";
import { UI_TEXT } from "../../lib/ui-text.ts";
import { signOut } from "../../stores/auth.ts";
import { useSession } from "../auth/use-session.ts";

interface Props {
  variant: "desktop" | "mobile";
}

async function handleSignOut() {
  await signOut();
  navigate("/");
}

/** A page of the account, its menu label, and whether the menu offers it to this user. */
type MenuLink = [href: string, label: string, offered: boolean];

/** Support staff and admins get the console in their menu; customers never see it. */
const isStaff = (role: string) => role === "support" || role === "admin";

/**
 * The balance; on a dispute hold (its keys are refused 402 whatever the balance) a warning mark
 * after it, named in the API's words, that leads to /profile's explanation and support contact.
 */
function CreditBadge({ balance, held }: { balance: number; held: boolean }) {
  return (
    <>
      <span className="tooltip tooltip-bottom shrink-0" data-tip={UI_TEXT.creditTooltip}>
        <span className="badge badge-ghost gap-1 font-semibold tabular-nums" data-credit-balance>
          <span className="sr-only">{UI_TEXT.creditTooltip}: </span>
          {formatBalance(balance)}
          <span aria-hidden="true">credits</span>
        </span>
      </span>
      {/* Beside the balance's tooltip, not in it: hovering the mark shows its own title. */}
      {held && (
        <Suspense>
          <DisputeHoldMark />
        </Suspense>
      )}
    </>
  );
}

/** Closes the menu on a click outside it or on Escape, as a menu is expected to. */
function useDismiss(ref: React.RefObject<HTMLDetailsElement | null>) {
  useEffect(() => {
    const close = (event: Event) => {
      const menu = ref.current;
      if (!menu?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== "Escape") return;
        menu.open = false;
        menu.querySelector("summary")?.focus();
        return;
      }
      if (!menu.contains(event.target as Node)) menu.open = false;
    };
    document.addEventListener("click", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("click", close);
      document.removeEventListener("keydown", close);
    };
  }, [ref]);
}

// Loaded only for an organisation on a dispute hold (a chunk that fails leaves the balance alone).
const DisputeHoldMark = lazy(() => import("./DisputeHoldMark.tsx").catch(() => ({ default: () => null })));

// A chunk that fails to load leaves the menu without its organisation part, never without the menu.
const OrgMenu = lazy(() => import("../org/OrgMenu.tsx").catch(() => ({ default: () => null })));

/** True once the <details> around `ref` (the desktop menu, or the mobile menu) has been opened. */
function useOpenedOnce(ref: React.RefObject<HTMLElement | null>, signedIn: boolean): boolean {
  const [opened, setOpened] = useState(false);
  useEffect(() => {
    // The menu's links (and so `ref`) are there once the user is known.
    const menu = signedIn ? ref.current?.closest("details") : null;
    if (!menu || opened) return;
    // Opened before this island knew the user (a tap while the page was still loading).
    if (menu.open) setOpened(true);
    const onToggle = () => menu.open && setOpened(true);
    menu.addEventListener("toggle", onToggle);
    return () => menu.removeEventListener("toggle", onToggle);
  }, [ref, signedIn, opened]);
  return opened;
}

export default function AccountMenu({ variant }: Props) {
  const { user, status } = useSession();
  const menuRef = useRef<HTMLDetailsElement>(null);
  const anchorRef = useRef<HTMLAnchorElement>(null);
  useDismiss(menuRef);
  const opened = useOpenedOnce(anchorRef, user !== null);
  const orgMenu = opened && (
    <Suspense>
      <OrgMenu variant={variant} current={user?.organization} />
    </Suspense>
  );

  if (!user) {
    // The visitor's Log In and Register are the top bar's own HTML (TopBar.astro, MobileMenu.astro),
    // there before any script runs. With a stored token they wait, hidden, until this mark says no
    // user came of it (src/lib/session-hint.ts, global.css).
    return status === "ready" ? <i hidden data-visitor /> : null;
  }

  const greeting = UI_TEXT.greeting(user.username);
  // The account's pages, once for both variants; each only where the chosen organisation's role
  // may use it ("what a role may not do is not offered": no API keys for a billing member, no
  // billing for a manager or a developer).
  const org = user.organization;
  const links = (
    [
      ["/profile", UI_TEXT.myAccount, true],
      ["/profile/api-keys", UI_TEXT.apiKeys.menu, makesKeys(org)],
      ["/profile/usage", UI_TEXT.usage.menu, true],
      ["/profile/billing", UI_TEXT.billing.menu, seesBilling(org)],
      ["/profile/security", UI_TEXT.security.menu, true],
      ["/admin/customers", UI_TEXT.operatorConsole, isStaff(user.role)],
    ] satisfies MenuLink[]
  ).filter(([, , offered]) => offered);
  const link = ([href, label]: MenuLink, className?: string) => (
    <a
      key={href}
      href={href}
      className={className}
      // The organisation switcher loads when the menu that holds this link first opens.
      ref={href === "/profile" ? anchorRef : undefined}
    >
      {label}
    </a>
  );
  // Whose credits and plan the bar shows, when that is a team organisation's (the mobile menu's
  // switcher names it, checked, as the menu opens). Under the greeting, so that the bar keeps to
  // one row at 768 px; cut short when long: the whole name shows on hover and in the switcher.
  const team = org?.personal === false && (
    <span
      className="max-w-full truncate text-xs font-normal text-base-content/80"
      data-org-name
      title={org.name ?? undefined}
    >
      {org.name}
    </span>
  );
  if (variant === "mobile") {
    return (
      <>
        <p className="col-span-2 flex items-center gap-2 font-semibold">
          <span className="me-auto truncate">{greeting}</span>
          <CreditBadge balance={user.credit_balance} held={onDisputeHold(user)} />
        </p>
        {orgMenu}
        {links.map((entry) => link(entry, "btn btn-sm btn-outline"))}
        <button type="button" className="btn btn-sm" onClick={handleSignOut}>
          {UI_TEXT.signOut}
        </button>
      </>
    );
  }

  return (
    <>
      <CreditBadge balance={user.credit_balance} held={onDisputeHold(user)} />
      <details className="dropdown dropdown-end min-w-0" ref={menuRef}>
        <summary className="btn btn-ghost btn-sm h-auto min-h-8 w-full max-w-48 flex-nowrap py-1 lg:max-w-60">
          <span className="flex min-w-0 flex-col items-start text-start leading-tight">
            <span className="max-w-full truncate" title={greeting}>
              {greeting}
            </span>
            {team}
          </span>
          <svg
            className="size-4 shrink-0"
            viewBox="0 0 16 16"
            fill="none"
            aria-hidden="true"
            focusable="false"
          >
            <path d="m4 6 4 4 4-4" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" />
          </svg>
        </summary>
        <ul className="menu dropdown-content z-40 mt-2 w-60 rounded-box border border-base-300 bg-base-100 p-2 shadow-xl">
          {orgMenu}
          {links.map((entry) => (
            <li key={entry[0]}>{link(entry)}</li>
          ))}
          <li>
            <button type="button" onClick={handleSignOut}>
              {UI_TEXT.signOut}
            </button>
          </li>
        </ul>
      </details>
    </>
  );
}
