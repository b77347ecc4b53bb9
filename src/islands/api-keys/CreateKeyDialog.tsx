// 'Create API key': a name, when it expires (never, 30, 90 or 365 days), an optional monthly credit
// limit and an optional feature restriction. Checked with the contract's schema before sending (the
// message next to the field), and the server's own 422 messages land in the same places.
import { type FormEvent, useId, useRef, useState } from "react";
import { API_KEY_EXPIRY_CHOICES, API_KEY_NAME_MAX } from "../../../contract/api-key-rules.ts";
import type { CreateApiKeyRequest, CreatedApiKey } from "../../../contract/api-keys.ts";
import { CREDIT_COSTS } from "../../../contract/credit-costs.ts";
import { asApiError, loadSchemas } from "../../lib/api-client.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { accountActionErrorMessage, fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { type FieldErrors, firstFieldErrors } from "../../lib/form-errors.ts";
import { createApiKey } from "../../stores/api-keys.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";
import { Dialog } from "../profile/Dialog.tsx";

const T = API_KEYS_TEXT;

/** The request the form's current values make, not yet validated (see validate). */
function requestFrom(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const expiry = String(data.get("expires_in_days") ?? "");
  const limit = String(data.get("monthly_credit_limit") ?? "").trim();
  const restricted = data.get("feature_scope") === "some";
  return {
    name: String(data.get("name") ?? ""),
    expires_in_days: expiry === "" ? null : Number(expiry),
    monthly_credit_limit: limit === "" ? null : Number(limit),
    features: restricted ? data.getAll("features").map(String) : null,
  };
}

export function CreateKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const formRef = useRef<HTMLFormElement>(null);
  const formId = useId();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [someFeatures, setSomeFeatures] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  const close = () => {
    formRef.current?.reset();
    setErrors({});
    setProblem(null);
    setSubmitted(false);
    setSomeFeatures(false);
    onClose();
  };

  const validate = async (): Promise<CreateApiKeyRequest | null> => {
    const form = formRef.current;
    if (!form) return null;
    const request = requestFrom(form);
    const found = firstFieldErrors((await loadSchemas()).createApiKeyRequestSchema, request);
    setErrors(found);
    return Object.keys(found).length === 0 ? (request as CreateApiKeyRequest) : null;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    setProblem(null);
    const request = await validate();
    if (!request) {
      formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus();
      return;
    }
    setBusy(true);
    try {
      const created = await createApiKey(request);
      formRef.current?.reset();
      setSubmitted(false);
      setSomeFeatures(false);
      onCreated(created);
    } catch (error) {
      // The visitor closed "Confirm your password": the form stays as it was, nothing to say.
      if (error instanceof ReauthCancelled) return;
      const failed = asApiError(error);
      const fields = fieldErrorsFrom422(failed);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else if (failed.status === 409 || failed.status === 403) setProblem(String(failed.detail));
      else notify("error", accountActionErrorMessage(failed));
    } finally {
      setBusy(false);
    }
  };

  const onChange = () => {
    if (submitted) void validate();
  };
  const invalid = (field: string) => (errors[field] ? true : undefined);
  const describedBy = (field: string, helper?: string) =>
    [errors[field] ? `${formId}-${field}-error` : undefined, helper].filter(Boolean).join(" ") || undefined;

  return (
    <Dialog
      open={open}
      title={T.createTitle}
      onClose={close}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {T.cancel}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {busy ? T.creating : T.create}
          </button>
        </>
      }
    >
      <form
        id={formId}
        ref={formRef}
        className="flex flex-col gap-4"
        noValidate
        onSubmit={submit}
        onChange={onChange}
      >
        {problem && (
          <p role="alert" className="alert alert-warning text-sm" data-create-problem>
            {problem}
          </p>
        )}
        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${formId}-name`} className="text-sm font-medium">
            {T.name}
          </label>
          <input
            id={`${formId}-name`}
            name="name"
            className={errors.name ? "input input-error w-full" : "input w-full"}
            placeholder={T.namePlaceholder}
            maxLength={API_KEY_NAME_MAX + 10}
            autoComplete="off"
            aria-invalid={invalid("name")}
            aria-describedby={describedBy("name")}
          />
          <FieldError id={`${formId}-name-error`} name="name" message={errors.name} />
        </div>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${formId}-expiry`} className="text-sm font-medium">
            {T.expiry}
          </label>
          <select
            id={`${formId}-expiry`}
            name="expires_in_days"
            className="select w-full"
            defaultValue="90"
            aria-invalid={invalid("expires_in_days")}
            aria-describedby={describedBy("expires_in_days")}
          >
            {API_KEY_EXPIRY_CHOICES.map((days) => (
              <option key={days ?? "never"} value={days ?? ""}>
                {days === null ? T.expiryNever : T.expiryDays(days)}
              </option>
            ))}
          </select>
          <FieldError
            id={`${formId}-expires_in_days-error`}
            name="expires_in_days"
            message={errors.expires_in_days}
          />
        </div>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${formId}-limit`} className="text-sm font-medium">
            {T.limit}
          </label>
          <input
            id={`${formId}-limit`}
            name="monthly_credit_limit"
            type="number"
            inputMode="decimal"
            min={0.001}
            step={0.001}
            className={errors.monthly_credit_limit ? "input input-error w-full" : "input w-full"}
            aria-invalid={invalid("monthly_credit_limit")}
            aria-describedby={describedBy("monthly_credit_limit", `${formId}-limit-help`)}
          />
          <p id={`${formId}-limit-help`} className="text-xs text-base-content/80">
            {T.limitHelper}
          </p>
          <FieldError
            id={`${formId}-monthly_credit_limit-error`}
            name="monthly_credit_limit"
            message={errors.monthly_credit_limit}
          />
        </div>
        <fieldset className="flex flex-col gap-2" aria-describedby={describedBy("features")}>
          <legend className="mb-1 text-sm font-medium">{T.features}</legend>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="feature_scope"
              value="all"
              className="radio radio-sm"
              defaultChecked
              onChange={() => setSomeFeatures(false)}
            />
            {T.allFeatures}
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="feature_scope"
              value="some"
              className="radio radio-sm"
              onChange={() => setSomeFeatures(true)}
            />
            {T.someFeatures}
          </label>
          {someFeatures && (
            <div className="grid gap-1.5 ps-6 sm:grid-cols-2">
              {CREDIT_COSTS.map((cost) => (
                <label key={cost.id} className="flex items-center gap-2 text-sm">
                  <input type="checkbox" name="features" value={cost.id} className="checkbox checkbox-sm" />
                  {cost.feature}
                </label>
              ))}
            </div>
          )}
          <FieldError id={`${formId}-features-error`} name="features" message={errors.features} />
        </fieldset>
      </form>
    </Dialog>
  );
}
