// /profile (guarded: roles user and admin): 'My Account' with the read-only account fields, and
// what the plan allows: 'Buy Plan' on FREE; change and cancel on a paid plan; top-up packs.
import { lazy, Suspense } from "react";
import type { User } from "../../../contract/account.ts";
import { makesKeys, seesBilling } from "../../../contract/account-area.ts";
import { can } from "../../../contract/org-roles.ts";
import { formatBalance, hasPaidPlan, onDisputeHold, subscriptionOf } from "../../lib/account-view.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { isoDay } from "../../lib/format-date.ts";
import { PROFILE_TEXT } from "../../lib/profile-text.ts";
import { ROLE_NAMES } from "../../lib/role-text.ts";
import { scheduledChange } from "../../lib/scheduled-change.ts";
import { UI_TEXT } from "../../lib/ui-text.ts";
import { initSession } from "../../stores/auth.ts";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { CreditBreakdown } from "./CreditBreakdown.tsx";

// The account is this page's content: ask for it as soon as this module runs in the browser, before
// React hydrates the page (the session check runs once per page, so the island's own call reuses it).
if (typeof document !== "undefined") void initSession();

// Only users on a paid plan manage it: their dialogs and the top-up packs load on demand.
const PlanActions = lazy(() => import("./PlanActions.tsx").then((m) => ({ default: m.PlanActions })));
const TopUps = lazy(() => import("./TopUps.tsx").then((m) => ({ default: m.TopUps })));
// Only a held organisation's page needs it.
const DisputeHoldAlert = lazy(() => import("./DisputeHoldAlert.tsx"));
// The alert setting is below the fold: its form loads after the page's own code (the page budget).
const LowBalanceAlert = lazy(() =>
  import("./LowBalanceAlert.tsx").then((m) => ({ default: m.LowBalanceAlert })),
);
// Creating an organisation is rare and far down the page: its form loads after the page's own code.
const CreateOrganization = lazy(() =>
  import("../org/CreateOrganization.tsx").then((m) => ({ default: m.CreateOrganization })),
);
const Loading = () => <span className="loading loading-spinner" aria-hidden="true" />;

const T = PROFILE_TEXT;

function ReadOnlyField({ id, label, value }: { id: string; label: string; value: string }) {
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={`profile-${id}`} className="text-sm font-medium">
        {label}
      </label>
      <input id={`profile-${id}`} className="input w-full" readOnly value={value} data-profile-field={id} />
    </div>
  );
}

/**
 * The chosen team organisation: its name, and the user's role in a badge beside it. The role stays
 * in sight when a long name is cut short (a phone, a tablet); the whole name scrolls in the field.
 */
function OrganisationField({ name, role }: { name: string; role: string }) {
  return (
    <div className="flex flex-col gap-1.5 sm:col-span-2">
      <label htmlFor="profile-organization" className="text-sm font-medium">
        {T.organisation.field}
      </label>
      <div className="input w-full">
        <input
          id="profile-organization"
          className="min-w-0 grow"
          readOnly
          value={name}
          aria-describedby="profile-organization-role"
          data-profile-field="organization"
        />
        <span id="profile-organization-role" className="badge badge-soft badge-sm shrink-0">
          <span className="sr-only">{T.organisation.role}: </span>
          <span data-profile-org-role>{role}</span>
        </span>
      </div>
    </div>
  );
}

function AccountView({ user, contact }: { user: User; contact: string }) {
  const subscription = subscriptionOf(user);
  const paid = hasPaidPlan(user);
  const scheduled = paid ? scheduledChange(subscription) : null;
  const org = user.organization;
  const team = org && !org.personal ? org : null;
  // The plan, top-ups and the alert are billing: an organisation's owners and billing members.
  const billing = seesBilling(org);
  // A billing member makes no API keys: the section offers only the usage.
  const keys = makesKeys(org);
  return (
    <div className="card-body gap-8" data-profile>
      <section aria-labelledby="account-details" className="flex flex-col gap-4">
        <h2 id="account-details" className="text-lg font-semibold">
          Account details
        </h2>
        <div className="grid gap-4 sm:grid-cols-2">
          {team && <OrganisationField name={team.name ?? ""} role={ROLE_NAMES[team.role]} />}
          <ReadOnlyField id="username" label={T.username} value={user.username} />
          <ReadOnlyField id="email" label={T.email} value={user.email} />
          <ReadOnlyField id="plan" label={T.plan} value={subscription.plan} />
          <ReadOnlyField
            id="plan-end"
            label={T.planEnds}
            value={isoDay(subscription.expires_at) ?? T.notAvailable}
          />
          <ReadOnlyField id="tokens" label={T.tokens} value={formatBalance(user.credit_balance)} />
          {onDisputeHold(user) && (
            <Suspense>
              <DisputeHoldAlert team={team !== null} contact={contact} className="sm:col-span-2" paying />
            </Suspense>
          )}
          {/* What the balance is made of is the credit ledger: not a developer's to read. */}
          {(!org || can(org.role, "ledger")) && <CreditBreakdown balance={user.credit_balance} />}
        </div>
      </section>
      <section aria-labelledby="plan-heading" className="flex flex-col gap-4">
        <h2 id="plan-heading" className="text-lg font-semibold">
          Your plan
        </h2>
        {scheduled && (
          <p role="status" className="alert alert-info text-sm" data-scheduled>
            {scheduled}
          </p>
        )}
        {subscription.status === "past_due" && (
          <p role="alert" className="alert alert-warning text-sm" data-past-due>
            <span>
              {PROFILE_TEXT.failedNotice}{" "}
              {billing ? (
                <a href="/profile/billing" className="link font-semibold">
                  {PROFILE_TEXT.updatePaymentMethod}
                </a>
              ) : (
                PROFILE_TEXT.askOwnerToUpdate
              )}
            </span>
          </p>
        )}
        {!billing ? (
          <p className="text-sm text-base-content/80" data-billing-by-others>
            {T.organisation.billingByOthers}
          </p>
        ) : paid ? (
          <Suspense fallback={<Loading />}>
            <PlanActions user={user} />
          </Suspense>
        ) : (
          <div className="flex flex-col items-start gap-3">
            <p className="text-sm text-base-content/80">
              You are on the Free plan. Subscribe to a tier for monthly credits and top-up packs.
            </p>
            <a href="/plans" className="btn btn-primary">
              {T.buyPlan}
            </a>
          </div>
        )}
      </section>
      {paid && billing && (
        <Suspense fallback={<Loading />}>
          <TopUps balance={user.credit_balance} />
        </Suspense>
      )}
      {/* The fallback keeps the section's height (min-h-40 there too), so nothing moves when it comes. */}
      {billing && (
        <Suspense fallback={<div className="min-h-40" />}>
          <LowBalanceAlert />
        </Suspense>
      )}
      <section aria-labelledby="api-access-heading" className="flex flex-col items-start gap-3">
        <h2 id="api-access-heading" className="text-lg font-semibold">
          {keys ? T.apiAccessTitle : T.usageTitle}
        </h2>
        <p className="text-sm text-base-content/80">{keys ? API_KEYS_TEXT.intro : T.usageIntro}</p>
        <div className="flex flex-wrap gap-2">
          {keys && (
            <a href="/profile/api-keys" className="btn btn-outline" data-api-keys-link>
              {T.manageKeys}
            </a>
          )}
          <a href="/profile/usage" className="btn btn-outline" data-usage-link>
            {T.usageLink}
          </a>
        </div>
      </section>
      <section aria-labelledby="account-links-heading" className="flex flex-col items-start gap-3">
        <h2 id="account-links-heading" className="text-lg font-semibold">
          {billing ? T.accountTitle : T.securityTitle}
        </h2>
        <p className="text-sm text-base-content/80">{billing ? T.accountIntro : T.securityIntro}</p>
        <div className="flex flex-wrap gap-2">
          {billing && (
            <a href="/profile/billing" className="btn btn-outline" data-billing-link>
              {UI_TEXT.billing.menu}
            </a>
          )}
          <a href="/profile/security" className="btn btn-outline" data-security-link>
            {UI_TEXT.security.menu}
          </a>
        </div>
      </section>
      <section aria-labelledby="organisations-heading" className="flex flex-col gap-3">
        <h2 id="organisations-heading" className="text-lg font-semibold">
          {T.organisation.title}
        </h2>
        <p className="text-sm text-base-content/80">{T.organisation.intro}</p>
        {team && (
          <p className="text-sm">
            <a href="/org/members" className="link link-primary" data-org-members-link>
              {T.organisation.membersLink(team.name ?? "")}
            </a>
          </p>
        )}
        <Suspense fallback={<div className="min-h-20" />}>
          <CreateOrganization />
        </Suspense>
      </section>
    </div>
  );
}

/** `contact`: the support contact page (site-links.yaml's "contact", as the footer links it). */
export default function Profile({ contact }: { contact: string }) {
  return (
    <RouteGuard loadingMessage="Loading your account…">
      {(user) => (
        <div className="card border border-base-300 bg-base-100 shadow-sm">
          <AccountView user={user} contact={contact} />
        </div>
      )}
    </RouteGuard>
  );
}
