// Auto top-up's settings on /profile/billing: on or off, the threshold, the pack and the monthly
// limit. Turning it on, or changing values while it is on, first shows the consent text the API
// renders for exactly those values; the customer ticks "I agree" and the PUT carries its version.
// Refusals stay beside their fields (422) or above the buttons (409); what was typed is kept.
import { useStore } from "@nanostores/react";
import { type FormEvent, useEffect, useEffectEvent, useId, useRef, useState } from "react";
import type { AutoTopUp, AutoTopUpRequest } from "../../../contract/auto-top-up.ts";
import { formatMoney } from "../../../contract/money.ts";
import { asApiError } from "../../lib/api-client.ts";
import {
  checkForm,
  errorsFrom422,
  type FormErrors,
  formFrom,
  needsConsent,
  type Pack,
  resetsText,
  type SettingsForm,
  thresholdMax,
  withConsent,
} from "../../lib/auto-top-up-form.ts";
import { AUTO_TOP_UP_PAGE_TEXT, MIN_THRESHOLD } from "../../lib/auto-top-up-text.ts";
import { detailText } from "../../lib/error-messages.ts";
import { $termsToAgree, loadConsentText, saveAutoTopUp } from "../../stores/auto-top-up.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { FieldError } from "../forms/Field.tsx";
import { focusStatus } from "./AutoTopUpParts.tsx";

const T = AUTO_TOP_UP_PAGE_TEXT;
const F = T.form;

type Consent =
  | { step: "loading" }
  | { step: "shown"; text: string; version: string; request: AutoTopUpRequest; agreed: boolean };

/** The toast for what was saved. */
function savedMessage(before: AutoTopUp, after: AutoTopUp): string {
  if (after.enabled && !before.enabled) return F.turnedOn;
  if (!after.enabled && before.enabled) return F.turnedOff;
  // Agreeing to new terms after Resume was refused for them (AutoTopUp.tsx).
  if (before.status === "paused" && after.status === "active") return T.resumed;
  return F.saved;
}

/**
 * `heldNoteId`: on a dispute hold, the id of the section's note saying why auto top-up stays off;
 * every field and Save are disabled meanwhile, described by it (the API would refuse turning it on
 * with 409, and a form that cannot be saved must not look editable).
 */
export function AutoTopUpSettings({
  data,
  packs,
  heldNoteId,
}: {
  data: AutoTopUp;
  packs: readonly Pack[];
  heldNoteId?: string | undefined;
}) {
  const held = heldNoteId !== undefined;
  const id = useId();
  const [form, setForm] = useState<SettingsForm>(() => formFrom(data, packs));
  const [errors, setErrors] = useState<FormErrors>({});
  const [consent, setConsent] = useState<Consent | null>(null);
  const [busy, setBusy] = useState(false);
  const consentHeading = useRef<HTMLHeadingElement>(null);

  // The consent panel takes the focus when it opens: it is what the customer reads next.
  const consentShown = consent?.step === "shown";
  useEffect(() => {
    if (consentShown) consentHeading.current?.focus();
  }, [consentShown]);

  const pack = packs.find((p) => p.id === form.productId);
  const currency = pack?.currency ?? data.monthly_limit?.currency ?? "eur";

  /** A value changed: the consent shown was for the old values, and its field's message goes. */
  const edit = (change: Partial<SettingsForm>, field: keyof FormErrors) => {
    setForm({ ...form, ...change });
    setConsent(null);
    setErrors(({ [field]: _gone, consent: _c, form: _f, ...rest }) => rest);
  };

  const refused = (error: unknown, sentConsent: boolean, request: AutoTopUpRequest) => {
    if (error instanceof ReauthCancelled) return;
    const failed = asApiError(error);
    if (failed.status === 422) {
      const fields = errorsFrom422(failed.detail);
      // A replaced card needs consent too, which only the API can tell: ask for it now. Consent
      // sent for a text that changed meanwhile (another card, other VAT): show the new text, with
      // the API's sentence beside "I agree".
      if (fields.consent && Object.keys(fields).length === 1) {
        void askConsent(request, sentConsent ? fields.consent : undefined);
        return;
      }
      setErrors(fields);
      if (fields.form) notify("error", fields.form);
      return;
    }
    const message =
      failed.status === 409 && detailText(failed.detail) ? detailText(failed.detail) : F.saveFailed;
    setErrors({ form: message });
    notify("error", message);
  };

  const send = async (request: AutoTopUpRequest) => {
    setBusy(true);
    try {
      const saved = await saveAutoTopUp(request);
      notify("success", savedMessage(data, saved));
      setConsent(null);
      setErrors({});
      setForm(formFrom(saved, packs));
      // The consent panel (or the form, started again from the answer) had the focus.
      focusStatus();
    } catch (error) {
      refused(error, request.consent !== undefined, request);
    } finally {
      setBusy(false);
    }
  };

  async function askConsent(request: AutoTopUpRequest, changed?: string) {
    setConsent({ step: "loading" });
    try {
      // Always fetched again: the text depends on the card and VAT on file, not only the values.
      const { text, text_version } = await loadConsentText(request);
      setConsent({ step: "shown", text, version: text_version, request, agreed: false });
      if (changed) setErrors({ consent: changed });
    } catch (error) {
      setConsent(null);
      const failed = asApiError(error);
      const fields = failed.status === 422 ? errorsFrom422(failed.detail) : {};
      const message = detailText(failed.detail) || T.consent.failed;
      setErrors(Object.keys(fields).length > 0 ? fields : { form: message });
      if (failed.status !== 422) notify("error", message);
    }
  }

  // Resume was refused for new terms (AutoTopUp.tsx): show them now, as Save would have.
  const termsToAgree = useStore($termsToAgree);
  const showTerms = useEffectEvent((asked: NonNullable<typeof termsToAgree>) => {
    $termsToAgree.set(null);
    void askConsent(asked.request, asked.reason);
  });
  useEffect(() => {
    if (termsToAgree) showTerms(termsToAgree);
  }, [termsToAgree]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy || consent || held) return;
    const checked = checkForm(form, packs);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const { request } = checked;
    if (request.enabled && data.card === null) {
      setErrors({ form: F.needsCard });
      return;
    }
    if (needsConsent(data, request)) await askConsent(request);
    else await send(request);
  };

  const agree = async (event: FormEvent) => {
    event.preventDefault();
    if (consent?.step !== "shown" || busy) return;
    if (!consent.agreed) {
      setErrors({ ...errors, consent: T.consent.mustAgree });
      return;
    }
    await send(withConsent(consent.request, consent));
  };

  const field = (name: "threshold" | "product_id" | "monthly_limit", helped = true) => {
    const error = errors[name];
    const inputId = `${id}-${name}`;
    const helpId = `${inputId}-help`;
    const describedBy = [error ? `${inputId}-error` : "", helped ? helpId : "", heldNoteId ?? ""]
      .filter(Boolean)
      .join(" ");
    return {
      inputId,
      helpId,
      error,
      errorId: `${inputId}-error`,
      control: {
        id: inputId,
        name,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy || undefined,
        disabled: held,
      },
    } as const;
  };
  const threshold = field("threshold");
  const product = field("product_id", false);
  const limit = field("monthly_limit");
  const resets = resetsText(data.limit_resets_at);
  const consentId = `${id}-consent`;
  const agreeId = `${id}-agree`;

  return (
    <div className="flex flex-col gap-4">
      <form className="flex flex-col gap-4" onSubmit={(e) => void submit(e)} noValidate data-auto-top-up-form>
        <h3 className="text-base font-semibold">{F.title}</h3>
        <label
          className={`flex w-fit items-center gap-3 text-sm font-medium ${held ? "cursor-not-allowed" : "cursor-pointer"}`}
        >
          <input
            type="checkbox"
            role="switch"
            aria-checked={form.enabled}
            className="toggle toggle-primary"
            name="enabled"
            checked={form.enabled}
            disabled={held}
            aria-describedby={heldNoteId}
            onChange={(e) => edit({ enabled: e.target.checked }, "enabled")}
            data-auto-top-up-enabled
          />
          {F.enabled}
        </label>
        <div className="grid gap-4 sm:grid-cols-3">
          <div className="flex flex-col gap-1">
            <label htmlFor={threshold.inputId} className="text-sm font-medium">
              {F.threshold}
            </label>
            <div className={`input w-full ${threshold.error ? "input-error" : ""}`}>
              <input
                {...threshold.control}
                type="number"
                inputMode="numeric"
                min={MIN_THRESHOLD}
                max={pack ? thresholdMax(pack) : undefined}
                step={1}
                className="tabular-nums"
                value={form.threshold}
                onChange={(e) => edit({ threshold: e.target.value }, "threshold")}
              />
              <span className="text-base-content/80">{F.thresholdUnit}</span>
            </div>
            {threshold.error && (
              <FieldError id={threshold.errorId} name="threshold" message={threshold.error} />
            )}
            <p id={threshold.helpId} className="text-xs text-base-content/80">
              {pack ? F.thresholdHelp(thresholdMax(pack)) : ""}
            </p>
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={product.inputId} className="text-sm font-medium">
              {F.pack}
            </label>
            <select
              {...product.control}
              className={`select w-full ${product.error ? "select-error" : ""}`}
              value={form.productId}
              onChange={(e) => edit({ productId: e.target.value }, "product_id")}
            >
              {!pack && <option value="">{T.errors.unknownPack}</option>}
              {packs.map((p) => (
                <option key={p.id} value={p.id}>
                  {F.packOption(p.name, formatMoney(p.unitAmount, p.currency))}
                </option>
              ))}
            </select>
            {product.error && <FieldError id={product.errorId} name="product_id" message={product.error} />}
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={limit.inputId} className="text-sm font-medium">
              {F.limit}
            </label>
            <div className={`input w-full ${limit.error ? "input-error" : ""}`}>
              <span className="text-base-content/80" aria-hidden="true">
                {currency.toUpperCase()}
              </span>
              <input
                {...limit.control}
                type="text"
                inputMode="decimal"
                autoComplete="off"
                className="tabular-nums"
                value={form.limit}
                onChange={(e) => edit({ limit: e.target.value }, "monthly_limit")}
              />
            </div>
            {limit.error && <FieldError id={limit.errorId} name="monthly_limit" message={limit.error} />}
            <p id={limit.helpId} className="text-xs text-base-content/80">
              {F.limitHelp(currency)} {resets}
            </p>
          </div>
        </div>
        {errors.form && (
          <div role="alert" className="alert alert-error text-sm" data-auto-top-up-error>
            <span>{errors.form}</span>
          </div>
        )}
        {!consent && (
          <div>
            <button
              type="submit"
              className="btn btn-primary btn-sm"
              disabled={busy || held}
              data-save-auto-top-up
            >
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {busy ? F.saving : F.save}
            </button>
          </div>
        )}
      </form>
      {consent?.step === "loading" && (
        <p role="status" className="flex items-center gap-2 text-sm">
          <span className="loading loading-spinner loading-sm" aria-hidden="true" />
          {T.consent.loading}
        </p>
      )}
      {consent?.step === "shown" && (
        <form
          className="flex flex-col gap-3 rounded-box border border-primary/60 bg-base-200 p-4"
          aria-labelledby={consentId}
          onSubmit={(e) => void agree(e)}
          noValidate
          data-auto-top-up-consent
        >
          <h4 id={consentId} ref={consentHeading} tabIndex={-1} className="text-base font-semibold">
            {T.consent.title}
          </h4>
          <p className="text-sm">{T.consent.intro}</p>
          <blockquote className="border-l-4 border-primary pl-3 text-sm" data-consent-text>
            {consent.text}
          </blockquote>
          <div className="flex flex-col gap-1">
            <label
              htmlFor={agreeId}
              className="flex w-fit cursor-pointer items-center gap-2 text-sm font-medium"
            >
              <input
                id={agreeId}
                type="checkbox"
                className="checkbox checkbox-primary checkbox-sm"
                checked={consent.agreed}
                aria-invalid={errors.consent ? true : undefined}
                aria-describedby={errors.consent ? `${agreeId}-error` : undefined}
                onChange={(e) => {
                  setConsent({ ...consent, agreed: e.target.checked });
                  setErrors(({ consent: _c, ...rest }) => rest);
                }}
                data-consent-agree
              />
              {T.consent.agree}
            </label>
            {errors.consent && <FieldError id={`${agreeId}-error`} name="consent" message={errors.consent} />}
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="submit" className="btn btn-primary btn-sm" disabled={busy} data-consent-confirm>
              {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {data.enabled && data.status !== "off" ? T.consent.confirmChange : T.consent.confirmOn}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              disabled={busy}
              onClick={() => {
                setConsent(null);
                setErrors({});
              }}
            >
              {T.consent.back}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
