// The console's "Auto top-up" panel on /admin/orgs/{id} (AUTO-TOP-UP.md "Pages"): what the customer
// sees under Billing, read-only, and "Turn off" with a reason for admins (the activity log keeps it;
// turning it on again needs the customer's new consent). Its own chunk, loaded with the page.
import { useStore } from "@nanostores/react";
import { useEffect, useState } from "react";
import type { AdminOrg } from "../../../contract/admin-orgs.ts";
import { formatMoney } from "../../../contract/money.ts";
import { resetsText } from "../../lib/auto-top-up-form.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../lib/auto-top-up-text.ts";
import { DANGER } from "../../lib/danger-button.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { $adminAutoTopUp, loadAdminAutoTopUp, turnOffAutoTopUp } from "../../stores/admin-auto-top-up.ts";
import { $topUpProducts } from "../../stores/catalogue.ts";
import {
  Attempts,
  CardSummary,
  ChargesMeter,
  pendingPayment,
  StatusBadge,
  statusSentence,
} from "../billing/AutoTopUpParts.tsx";
import { useCatalogue } from "../billing/use-catalogue.ts";
import { ActionDialog } from "./ActionDialog.tsx";
import { Section } from "./ConsoleTable.tsx";

const T = AUTO_TOP_UP_PAGE_TEXT;
const A = T.admin;

/** The pack by the name customers know it by, as the live catalogue gives it; its id until then. */
function PackName({ productId }: { productId: string | null }) {
  const { data: packs } = useCatalogue($topUpProducts);
  if (productId === null) return "—";
  return packs?.find((p) => p.id === productId)?.name ?? productId;
}

export default function OrgAutoTopUp({
  org,
  name,
  mayAct,
}: {
  org: AdminOrg;
  name: string;
  /**
   * Whether the viewer may turn it off: an admin (it stops charges as cancelling a plan stops
   * renewals, the same permission) who is not a member, on an organisation not deleted.
   */
  mayAct: boolean;
}) {
  const state = useStore($adminAutoTopUp);
  const [turningOff, setTurningOff] = useState(false);
  useEffect(() => {
    void loadAdminAutoTopUp(org.id);
  }, [org.id]);

  const data = state.orgId === org.id ? state.data : null;
  const never = data !== null && data.threshold === null && data.card === null && data.attempts.length === 0;
  const pending = data ? pendingPayment(data) : undefined;
  const until = data?.status === "paused" && data.paused_until ? dayAndTime(data.paused_until) : null;
  return (
    <Section
      id="org-auto-top-up"
      title={A.title}
      aside={
        data && mayAct && data.status !== "off" ? (
          <button
            type="button"
            className={`btn btn-sm btn-outline ${DANGER}`}
            onClick={() => setTurningOff(true)}
            data-action="autoTopUpOff"
          >
            {A.turnOff}
          </button>
        ) : undefined
      }
    >
      <div className="flex flex-col gap-4" data-org-auto-top-up={data?.status ?? state.status}>
        {state.status === "failed" && (
          <p role="alert" className="alert alert-error text-sm">
            {T.loadFailed}{" "}
            <button type="button" className="btn btn-sm" onClick={() => void loadAdminAutoTopUp(org.id)}>
              {T.retry}
            </button>
          </p>
        )}
        {!data && state.status === "loading" && (
          <p role="status" className="flex items-center gap-2 text-sm">
            <span className="loading loading-spinner loading-sm" aria-hidden="true" />
            {T.loading}
          </p>
        )}
        {data && never && <p className="text-sm text-base-content/70">{A.never}</p>}
        {data && !never && (
          <>
            <div role="status" className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <StatusBadge status={data.status} />
              <span className="text-sm">
                {statusSentence(data)}
                {until && ` ${T.pausedUntil(until)}`}
                {data.paused_reason && <span className="ml-1 font-mono text-xs">({data.paused_reason})</span>}
              </span>
            </div>
            {pending?.pay_url && (
              <p className="text-sm">
                {!data.reason_text && `${T.completePaymentNote} `}
                <a className="link" href={pending.pay_url} target="_blank" rel="noopener noreferrer">
                  {T.completePayment}
                </a>
              </p>
            )}
            <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-4">
              <div className="flex min-w-0 flex-col">
                <dt className="text-xs text-base-content/70">{A.card}</dt>
                <dd>{data.card ? <CardSummary card={data.card} /> : A.noCard}</dd>
              </div>
              <div className="flex min-w-0 flex-col">
                <dt className="text-xs text-base-content/70">{A.threshold}</dt>
                <dd>{data.threshold === null ? "—" : A.thresholdValue(data.threshold)}</dd>
              </div>
              <div className="flex min-w-0 flex-col">
                <dt className="text-xs text-base-content/70">{A.pack}</dt>
                <dd className="break-all">
                  <PackName productId={data.product_id} />
                </dd>
              </div>
              <div className="flex min-w-0 flex-col">
                <dt className="text-xs text-base-content/70">{A.limit}</dt>
                <dd>
                  {data.monthly_limit
                    ? formatMoney(data.monthly_limit.amount, data.monthly_limit.currency)
                    : "—"}
                </dd>
              </div>
            </dl>
            <div className="max-w-md">
              <ChargesMeter data={data} />
              <p className="text-xs text-base-content/70">{resetsText(data.limit_resets_at)}</p>
            </div>
            <Attempts attempts={data.attempts} />
          </>
        )}
      </div>
      <ActionDialog
        open={turningOff}
        title={`${A.turnOff}: ${name}`}
        effect={A.effect(name)}
        danger
        doneMessage={A.done}
        onClose={() => setTurningOff(false)}
        onConfirm={(reason) => turnOffAutoTopUp(org.id, reason)}
      />
    </Section>
  );
}
