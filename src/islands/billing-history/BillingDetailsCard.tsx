// /profile/billing's "Billing details": what is on file (the buyer on the organisation's invoices,
// and where invoices and billing mails go), and the form that changes them (PUT
// /v1/billing/details). The API checks every field; its messages are shown beside the field.
import { type FormEvent, useId, useState } from "react";
import { COUNTRY_CODES } from "../../../contract/countries.ts";
import { countryName } from "../../../contract/invoice-document.ts";
import { BILLING_DETAILS_MESSAGES, type BillingDetails } from "../../../contract/invoices.ts";
import { asApiError } from "../../lib/api-client.ts";
import { BILLING_TEXT } from "../../lib/billing-text.ts";
import { fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { saveBillingDetails } from "../../stores/billing-history.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";

const T = BILLING_TEXT;

type Field = "name" | "email" | "line1" | "line2" | "postal_code" | "city" | "country" | "vat_id";
type Form = Record<Field, string>;

/** The form's first values: what is on file, with the billing e-mail in force. */
function formFrom(details: BillingDetails): Form {
  const onFile = details.details;
  const address = onFile?.address;
  return {
    name: onFile?.name ?? "",
    email: onFile?.email ?? details.billing_email ?? "",
    line1: address?.line1 ?? "",
    line2: address?.line2 ?? "",
    postal_code: address?.postal_code ?? "",
    city: address?.city ?? "",
    country: address?.country ?? onFile?.country ?? "",
    vat_id: onFile?.vat_id ?? "",
  };
}

// Sorted by the name a reader looks for, once (the list is the same for every render).
let countries: { code: string; name: string }[] | undefined;
const countryOptions = () => {
  countries ??= COUNTRY_CODES.map((code) => ({ code, name: countryName(code) })).sort((a, b) =>
    a.name.localeCompare(b.name, "en"),
  );
  return countries;
};

const LABELS: Record<Field, string> = {
  name: T.name,
  email: T.billingEmail,
  line1: T.line1,
  line2: T.line2,
  postal_code: T.postalCode,
  city: T.city,
  country: T.country,
  vat_id: T.vatId,
};

const AUTOCOMPLETE: Record<Field, string> = {
  name: "organization",
  email: "email",
  line1: "address-line1",
  line2: "address-line2",
  postal_code: "postal-code",
  city: "address-level2",
  country: "country",
  vat_id: "off",
};

function DetailsForm({ details, onDone }: { details: BillingDetails; onDone: () => void }) {
  const [form, setForm] = useState<Form>(() => formFrom(details));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const prefix = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await saveBillingDetails({
        name: form.name,
        email: form.email,
        address: {
          line1: form.line1,
          line2: form.line2.trim() === "" ? null : form.line2,
          postal_code: form.postal_code,
          city: form.city,
          country: form.country,
        },
        vat_id: form.vat_id.trim() === "" ? null : form.vat_id,
      });
      notify("success", BILLING_DETAILS_MESSAGES.saved);
      onDone();
    } catch (error) {
      const failed = asApiError(error);
      const fields = fieldErrorsFrom422(failed) as Partial<Record<Field, string>>;
      if (Object.keys(fields).length > 0) setErrors(fields);
      else notify("error", failed.status === 403 ? T.detailsNotAllowed : T.detailsSaveFailed);
    } finally {
      setBusy(false);
    }
  };

  const input = (field: Field, type = "text") => {
    const id = `${prefix}-${field}`;
    const error = errors[field];
    const control = {
      id,
      name: field,
      "aria-invalid": error ? true : undefined,
      "aria-describedby": error ? `${id}-error` : undefined,
      autoComplete: AUTOCOMPLETE[field],
    } as const;
    return (
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="text-sm font-medium">
          {LABELS[field]}
          {(field === "line2" || field === "vat_id") && (
            <span className="font-normal text-base-content/70"> {T.optional}</span>
          )}
        </label>
        {field === "country" ? (
          <select
            {...control}
            className={error ? "select select-sm select-error w-full" : "select select-sm w-full"}
            value={form.country}
            onChange={(e) => setForm({ ...form, country: e.target.value })}
          >
            <option value="">{T.chooseCountry}</option>
            {countryOptions().map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        ) : (
          <input
            {...control}
            type={type}
            className={error ? "input input-sm input-error w-full" : "input input-sm w-full"}
            value={form[field]}
            onChange={(e) => setForm({ ...form, [field]: e.target.value })}
            spellCheck={false}
          />
        )}
        {error && <FieldError id={`${id}-error`} name={field} message={error} />}
      </div>
    );
  };

  return (
    <form
      className="grid gap-3 sm:grid-cols-2"
      onSubmit={(e) => void submit(e)}
      noValidate
      data-billing-details-form
    >
      <div className="sm:col-span-2">{input("name")}</div>
      <div className="sm:col-span-2">
        {input("email", "email")}
        <p className="mt-1 text-xs text-base-content/70">{T.billingEmailNote}</p>
      </div>
      <div className="sm:col-span-2">{input("line1")}</div>
      <div className="sm:col-span-2">{input("line2")}</div>
      {input("postal_code")}
      {input("city")}
      {input("country")}
      {input("vat_id")}
      <div className="flex flex-wrap gap-2 sm:col-span-2">
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy} data-save-billing-details>
          {busy ? T.saving : T.saveDetails}
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onDone} disabled={busy}>
          {T.cancel}
        </button>
      </div>
    </form>
  );
}

function addressText(address: NonNullable<NonNullable<BillingDetails["details"]>["address"]>): string {
  return [address.line1, address.line2, `${address.postal_code} ${address.city}`].filter(Boolean).join(", ");
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
          <DetailsForm details={details} onDone={() => setEditing(false)} />
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
                <dd className={onFile.vat_id ? "font-mono" : undefined}>{onFile.vat_id ?? T.noVatId}</dd>
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
