// A paid user's plan management: the 'Change Subscription Plan' dialog (titled 'Upgrade/Downgrade
// plan': every other plan as a radio choice with price and name, 'Update plan' and 'Close') and
// 'Cancel Subscription' with a confirmation dialog. Each success refetches the user and toasts.
// While a change or the cancellation is pending, the dialog also offers to keep the current plan,
// which withdraws it: the only way back, and what the mails promise.
import { useState } from "react";
import type { User } from "../../../contract/account.ts";
import type { Product } from "../../../contract/billing.ts";
import { subscriptionOf } from "../../lib/account-view.ts";
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { isoDay } from "../../lib/format-date.ts";
import { PAYING_ORG_TEXT, payingOrganisation } from "../../lib/paying-org.ts";
import { PLAN_ACTION_TEXT } from "../../lib/plan-action-text.ts";
import { dialogPlanDetails, otherPlans, planToKeep } from "../../lib/plan-details.ts";
import { formatCredits } from "../../lib/plans.ts";
import { formatPrice, PRICE_TAX_NOTE } from "../../lib/price.ts";
import { PROFILE_TEXT } from "../../lib/profile-text.ts";
import { scheduledChange } from "../../lib/scheduled-change.ts";
import { cancelSubscription, updateSubscription } from "../../stores/billing.ts";
import { $subscriptionProducts, retryIfGivenUp } from "../../stores/catalogue.ts";
import { notify } from "../../stores/toast.ts";
import { CatalogueStatus } from "../billing/CatalogueStatus.tsx";
import { useCatalogue } from "../billing/use-catalogue.ts";
import { Dialog } from "./Dialog.tsx";

const T = PROFILE_TEXT;

function PlanOption({
  product,
  checked,
  onSelect,
  keep,
}: {
  product: Product;
  checked: boolean;
  onSelect: () => void;
  /** The current plan offered to keep: what choosing it withdraws. */
  keep?: string;
}) {
  const details = dialogPlanDetails(product.name);
  return (
    <label className="flex cursor-pointer items-start gap-3 rounded-box border border-base-300 p-3 has-checked:border-primary">
      <input
        type="radio"
        name="plan"
        className="radio radio-primary mt-1"
        checked={checked}
        onChange={onSelect}
      />
      <span className="flex flex-1 flex-col">
        <span className="flex items-baseline justify-between gap-2">
          <span className="font-semibold">{keep ? T.keepPlan(product.name) : product.name}</span>
          <span className="tabular-nums">
            {formatPrice(product.default_price.unit_amount, product.default_price.currency)}{" "}
            <span className="text-xs text-base-content/80">{PRICE_TAX_NOTE}</span>
          </span>
        </span>
        <span className="text-sm text-base-content/80">
          {details.creditsPerMonth !== null && `${formatCredits(details.creditsPerMonth)} credits per month`}
          {details.concurrentRequests !== null && `, up to ${details.concurrentRequests} concurrent requests`}
        </span>
        {keep && (
          <span className="text-sm" data-keep-plan-note>
            {keep}
          </span>
        )}
      </span>
    </label>
  );
}

/** The other plans to choose from; reading the catalogue starts when the dialog opens. */
function PlanChoices({
  user,
  choice,
  onChoose,
}: {
  user: User;
  choice: string | null;
  onChoose: (productId: string) => void;
}) {
  const { data: products, failed: loadFailed } = useCatalogue($subscriptionProducts);
  const subscription = subscriptionOf(user);
  const choices = products ? otherPlans(products, subscription) : [];
  const keep = products ? planToKeep(products, subscription) : null;
  const keepNote = T.keepPlanNote({
    scheduledPlan: subscription.scheduled_plan,
    cancelling: subscription.cancel_at_period_end,
  });
  return (
    <>
      {!products && <CatalogueStatus failed={loadFailed} loading="Loading plans…" />}
      {products && (
        <fieldset className="flex flex-col gap-2">
          <legend className="sr-only">Choose a plan</legend>
          {keep && (
            <PlanOption
              product={keep}
              checked={choice === keep.id}
              onSelect={() => onChoose(keep.id)}
              keep={keepNote}
            />
          )}
          {choices.map((p) => (
            <PlanOption key={p.id} product={p} checked={choice === p.id} onSelect={() => onChoose(p.id)} />
          ))}
        </fieldset>
      )}
    </>
  );
}

/** The team organisation the dialog acts on, named (nothing for the personal one). */
function PayingOrg({ user, text }: { user: User; text: (org: string) => string }) {
  const org = payingOrganisation(user);
  if (!org) return null;
  return (
    <p className="mt-3 text-sm font-medium" data-paying-org>
      {text(org)}
    </p>
  );
}

function ChangePlan({ user }: { user: User }) {
  const subscription = subscriptionOf(user);
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const openDialog = () => {
    retryIfGivenUp($subscriptionProducts);
    // Nothing chosen: a choice left from before may no longer be offered (a kept plan is not,
    // once nothing is pending), and Update plan would send it.
    setChoice(null);
    setOpen(true);
  };

  const update = async () => {
    if (!choice) return;
    setBusy(true);
    try {
      await updateSubscription(choice);
      notify("success", PLAN_ACTION_TEXT.planUpdated);
      setOpen(false);
    } catch {
      notify("error", PLAN_ACTION_TEXT.updatePlanFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className="btn btn-primary" onClick={openDialog}>
        {T.changePlan}
      </button>
      <Dialog
        open={open}
        title={T.changePlanTitle}
        onClose={() => setOpen(false)}
        actions={
          <>
            <button type="button" className="btn" onClick={() => setOpen(false)}>
              {T.close}
            </button>
            <button type="button" className="btn btn-primary" disabled={!choice || busy} onClick={update}>
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {T.updatePlan}
            </button>
          </>
        }
      >
        <p className="mb-3 text-sm text-base-content/80">
          {T.changePlanIntro(subscription.plan, isoDay(subscription.expires_at))}{" "}
          {scheduledChange(subscription)}
        </p>
        <PayingOrg user={user} text={PAYING_ORG_TEXT.changePlan} />
        {open && <PlanChoices user={user} choice={choice} onChoose={setChoice} />}
      </Dialog>
    </>
  );
}

function CancelPlan({ user }: { user: User }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const subscription = subscriptionOf(user);

  const confirm = async () => {
    setBusy(true);
    try {
      await cancelSubscription();
      notify("success", PLAN_ACTION_TEXT.subscriptionCanceled);
      setOpen(false);
    } catch (error) {
      notify("error", accountActionErrorMessage(asApiError(error)));
    } finally {
      setBusy(false);
    }
  };

  if (subscription.cancel_at_period_end) return null;
  return (
    <>
      <button type="button" className="btn btn-outline" onClick={() => setOpen(true)}>
        {T.cancelSubscription}
      </button>
      <Dialog
        open={open}
        title={T.cancelTitle}
        onClose={() => setOpen(false)}
        actions={
          <>
            <button type="button" className="btn" onClick={() => setOpen(false)}>
              {T.keepSubscription}
            </button>
            <button type="button" className="btn btn-error" disabled={busy} onClick={confirm}>
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {T.confirmCancel}
            </button>
          </>
        }
      >
        <p className="text-sm" data-cancel-body>
          {subscription.status === "past_due"
            ? T.cancelPastDue(subscription.plan)
            : T.cancelBody(subscription.plan, isoDay(subscription.expires_at), subscription.scheduled_plan)}
        </p>
        <PayingOrg user={user} text={PAYING_ORG_TEXT.cancel} />
      </Dialog>
    </>
  );
}

export function PlanActions({ user }: { user: User }) {
  return (
    <div className="flex flex-wrap gap-3">
      <ChangePlan user={user} />
      <CancelPlan user={user} />
    </div>
  );
}
