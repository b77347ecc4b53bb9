// /profile/billing's "Billing details": what is on file (the buyer on the organisation's invoices,
// and where invoices and billing mails go), and the button to the form that changes them
// (BillingDetailsForm.tsx, loaded when first opened).
import { lazy, Suspense, useState } from "react";
import { countryName } from "../../../contract/country-name.ts";
import type { BillingDetails } from "../../../contract/invoices.ts";
import {
  VAT_ID_STATUS_BADGE,
  VAT_ID_STATUS_TEXT,
  type VatIdStatus,
} from "../../../contract/vat-id-verification.ts";
import { BILLING_TEXT } from "../../lib/billing-text.ts";

const DetailsForm = lazy(() => import("./BillingDetailsForm.tsx"));

const T = BILLING_TEXT;

function addressText(address: NonNullable<NonNullable<BillingDetails["details"]>["address"]>): string {
  return [address.line1, address.line2, `${address.postal_code} ${address.city}`].filter(Boolean).join(", ");
}

/** The badge's colour for each state; its word says the same (VAT_ID_STATUS_BADGE). */
const STATUS_BADGE_CLASS: Record<VatIdStatus, string> = {
  pending: "badge-info",
  verified: "badge-success",
  unverified: "badge-error",
  unavailable: "badge-warning",
};

/** Whether the VAT ID is confirmed, and what that means for the VAT (decision 031). */
function VatIdState({ status }: { status: VatIdStatus }) {
  return (
    <span className="mt-1 flex flex-wrap items-center gap-2" data-vat-id-status={status}>
      <span className={`badge badge-sm ${STATUS_BADGE_CLASS[status]}`}>{VAT_ID_STATUS_BADGE[status]}</span>
      <span className="text-xs">{VAT_ID_STATUS_TEXT[status]}</span>
    </span>
  );
}

export function BillingDetailsCard({ details }: { details: BillingDetails }) {
  const [editing, setEditing] = useState(false);
  const onFile = details.details;
  return (
    <section
      aria-labelledby="billing-details"
      className="card border border-base-300 bg-base-100"
      data-billing-details
    >
      <div className="card-body gap-3">
        <h2 id="billing-details" className="card-title text-lg">
          {T.detailsTitle}
        </h2>
        {editing ? (
          <Suspense
            fallback={
              <p role="status" className="flex items-center gap-2 text-sm">
                <span className="loading loading-spinner loading-sm" aria-hidden="true" />
                {T.loadingForm}
              </p>
            }
          >
            <DetailsForm details={details} onDone={() => setEditing(false)} />
          </Suspense>
        ) : (
          <>
            {onFile ? (
              <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                <dt className="font-medium">{T.name}</dt>
                <dd>{onFile.name ?? "—"}</dd>
                {onFile.address && (
                  <>
                    <dt className="font-medium">{T.address}</dt>
                    <dd>{addressText(onFile.address)}</dd>
                  </>
                )}
                <dt className="font-medium">{T.country}</dt>
                <dd>{countryName(onFile.country)}</dd>
                <dt className="font-medium">{T.vatId}</dt>
                <dd>
                  {onFile.vat_id ? <span className="font-mono">{onFile.vat_id}</span> : T.noVatId}
                  {onFile.vat_id && onFile.vat_id_status && <VatIdState status={onFile.vat_id_status} />}
                </dd>
              </dl>
            ) : (
              <p className="text-sm">{T.detailsNone}</p>
            )}
            {details.billing_email && (
              <p className="text-sm" data-billing-email>
                {T.invoicesGoTo(details.billing_email)}
              </p>
            )}
            <p className="text-xs text-base-content/70">{T.detailsNote}</p>
            <div>
              <button
                type="button"
                className="btn btn-outline btn-sm"
                onClick={() => setEditing(true)}
                data-edit-billing-details
              >
                {onFile ? T.editDetails : T.addDetails}
              </button>
            </div>
          </>
        )}
      </div>
    </section>
  );
}
