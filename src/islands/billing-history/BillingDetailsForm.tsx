// /profile/billing's billing details form (PUT /v1/billing/details), loaded when "Edit" is first
// pressed: the country list and the form's code are not part of the page's first load. The API
// checks every field; its messages are shown beside the field.
import { type FormEvent, useId, useState } from "react";
import { BILLING_DETAILS_MESSAGES } from "../../../contract/billing-details-messages.ts";
import { countryOptions } from "../../../contract/countries.ts";
import type { BillingDetails } from "../../../contract/invoices.ts";
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

export default function DetailsForm({ details, onDone }: { details: BillingDetails; onDone: () => void }) {
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
