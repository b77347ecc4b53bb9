// A plan card's subscribe button. Visitors: the login page, which brings them back to /plans
// (originalPath). Users: starts the hosted checkout for the card's live product and price and
// goes there; a failure shows the spec's checkout message.
import { useState } from "react";
import { seesBilling } from "../../../contract/account-area.ts";
import { saveOriginalPath } from "../../lib/auth-storage.ts";
import { type CardIdentity, productForCard } from "../../lib/live-plans.ts";
import { PAYING_ORG_TEXT, payingOrganisation } from "../../lib/paying-org.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { startSubscriptionCheckout } from "../../stores/billing.ts";
import { notify } from "../../stores/toast.ts";
import { useHydrated } from "../auth/use-hydrated.ts";
import { useSession } from "../auth/use-session.ts";

interface Props extends CardIdentity {
  ctaText: string;
  featured: boolean;
}

export default function PlanSubscribe({ name, productIds, ctaText, featured }: Props) {
  const { user } = useSession();
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  // A team's name makes the label long: it wraps as one text, and the button grows with it.
  const className = `btn btn-block h-auto min-h-10 py-2 ${featured ? "btn-primary" : "btn-outline btn-primary"}`;
  const org = user ? payingOrganisation(user) : null;
  const label = (
    <span className="wrap-anywhere">
      {ctaText}
      <span className="sr-only"> to {name}</span>
      {org && <span data-paying-org>{PAYING_ORG_TEXT.subscribe(org)}</span>}
    </span>
  );

  if (!user) {
    // Without JavaScript (and in the prebuilt HTML) the link registers; once the island runs, a
    // visitor logs in (or registers from there) and comes back to /plans.
    return (
      <a
        href={hydrated ? "/login" : "/register"}
        className={className}
        onClick={hydrated ? () => saveOriginalPath("/plans") : undefined}
      >
        {label}
      </a>
    );
  }

  // What a role may not do is not offered (ORGANISATIONS.md): a developer or a manager of a team
  // organisation reads who chooses its plan, where the others have Subscribe.
  if (org && !seesBilling(user.organization)) {
    return (
      <p className="text-sm text-base-content/80 wrap-anywhere" data-subscribe-by-others>
        {PAYING_ORG_TEXT.subscribeByOthers(org)}
      </p>
    );
  }

  const subscribe = async () => {
    setBusy(true);
    try {
      // The catalogue store loads with the first click (the card's price has usually loaded it).
      const { $subscriptionProducts, readNow } = await import("../../stores/catalogue.ts");
      const product = productForCard(await readNow($subscriptionProducts), { name, productIds });
      if (!product) throw new Error(`No live product for ${name}`);
      window.location.assign(await startSubscriptionCheckout(product.id, product.default_price.id));
    } catch {
      notify("error", ERROR_TEXT.checkoutFailed);
      setBusy(false);
    }
  };

  return (
    <button type="button" className={className} disabled={busy} onClick={subscribe}>
      {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
      {label}
    </button>
  );
}
