// 'One time top-up packages' for users on a paid plan: the current token count, a radio choice of
// the packs (price, name, description) and Buy, which goes to the hosted checkout.
import { useId, useState } from "react";
import { topUpDescription } from "../../../contract/catalogue.ts";
import { formatBalance } from "../../lib/account-view.ts";
import { PAYING_ORG_TEXT, payingOrganisation } from "../../lib/paying-org.ts";
import { PLAN_ACTION_TEXT } from "../../lib/plan-action-text.ts";
import { formatPrice } from "../../lib/price.ts";
import { PROFILE_TEXT } from "../../lib/profile-text.ts";
import { startTopUpCheckout } from "../../stores/billing.ts";
import { $topUpProducts } from "../../stores/catalogue.ts";
import { notify } from "../../stores/toast.ts";
import { useSession } from "../auth/use-session.ts";
import { CatalogueStatus } from "../billing/CatalogueStatus.tsx";
import { useCatalogue } from "../billing/use-catalogue.ts";

const T = PROFILE_TEXT;

export function TopUps({ balance }: { balance: number }) {
  const headingId = useId();
  const { data: packs, failed: loadFailed } = useCatalogue($topUpProducts);
  const [choice, setChoice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { user } = useSession();
  const org = user ? payingOrganisation(user) : null;

  const buy = async () => {
    if (!choice) return;
    setBusy(true);
    try {
      window.location.assign(await startTopUpCheckout(choice));
    } catch {
      notify("error", PLAN_ACTION_TEXT.topUpFailed);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-4" data-top-ups>
      <h2 id={headingId} className="text-lg font-semibold">
        {T.topUpTitle}
      </h2>
      <p className="text-sm">
        You have{" "}
        <strong className="tabular-nums" data-top-up-balance>
          {formatBalance(balance)}
        </strong>{" "}
        tokens.
      </p>
      {!packs && <CatalogueStatus failed={loadFailed} loading="Loading top-up packages…" />}
      {packs && (
        <fieldset className="grid gap-2 sm:grid-cols-2">
          <legend className="sr-only">Choose a top-up package</legend>
          {packs.map((pack) => (
            <label
              key={pack.id}
              className="flex cursor-pointer items-start gap-3 rounded-box border border-base-300 p-3 has-checked:border-primary"
            >
              <input
                type="radio"
                name="top-up"
                className="radio radio-primary mt-1"
                checked={choice === pack.id}
                onChange={() => setChoice(pack.id)}
              />
              <span className="flex flex-col">
                <span className="font-semibold tabular-nums">
                  {formatPrice(pack.default_price.unit_amount, pack.default_price.currency)}
                </span>
                <span className="font-medium">{pack.name}</span>
                <span className="text-sm text-base-content/80">
                  {pack.description ?? topUpDescription(Number(pack.metadata.token_amount))}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {org && (
        <p className="text-sm font-medium" data-paying-org>
          {PAYING_ORG_TEXT.topUp(org)}
        </p>
      )}
      <div>
        <button type="button" className="btn btn-primary" disabled={!choice || busy} onClick={buy}>
          {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {T.buy}
        </button>
      </div>
    </section>
  );
}
