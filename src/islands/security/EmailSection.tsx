// /profile/security's e-mail address: the current one, and a new one that takes over only when
// the link mailed to it is followed (the server says so, and tells the old address). A change
// waiting for its link is shown, with a way to cancel it (a typo, or a change the owner did not ask for).
import { useStore } from "@nanostores/react";
import { useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import {
  API_DETAIL,
  accountActionErrorMessage,
  detailText,
  fieldErrorsFrom422,
} from "../../lib/error-messages.ts";
import { dayAndTime } from "../../lib/format-date.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { $emailState, cancelEmailChange, requestEmailChange } from "../../stores/security.ts";
import { notify } from "../../stores/toast.ts";
import { Field, SubmitButton } from "../forms/Field.tsx";
import { useForm } from "../forms/use-form.ts";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.email;
const FIELDS = ["email"] as const;

/**
 * What a refused address is called next to the field: the server's own words (409, 400, 422), but
 * an address in use in the words registering shows for it (the spec's 'Email already exists!').
 */
function refusal(error: unknown): string | undefined {
  const failed = asApiError(error);
  if (failed.status === 400 || failed.status === 409) {
    const text = detailText(failed.detail);
    return text.includes(API_DETAIL.emailExists) ? ERROR_TEXT.emailExists : text;
  }
  return fieldErrorsFrom422(failed).email;
}

/** The change waiting for its link, if any, with its Cancel button (no confirmation: asking again undoes it). */
function PendingChange() {
  const pending = useStore($emailState)?.pending_change;
  const [busy, setBusy] = useState(false);
  if (!pending) return null;
  const cancel = async () => {
    setBusy(true);
    try {
      notify("success", await cancelEmailChange());
    } catch (error) {
      const failed = asApiError(error);
      // 404: it had ended already (followed, expired, cancelled in another tab): the server says which words.
      notify(
        "error",
        (failed.status === 404 && detailText(failed.detail)) || accountActionErrorMessage(failed),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div
      className="flex flex-wrap items-center justify-between gap-3 rounded-box border border-info bg-info/10 p-4"
      data-pending-email
    >
      <div className="min-w-0 flex-1 basis-64 text-sm">
        <p>
          <span className="font-semibold">{T.pending}:</span>{" "}
          <span className="font-medium break-words" data-pending-address>
            {pending.email}
          </span>
        </p>
        <p className="text-base-content/80">
          {T.pendingUntil} <span className="whitespace-nowrap">{dayAndTime(pending.expires_at)}</span>.{" "}
          {T.pendingNote}
        </p>
      </div>
      <button type="button" className="btn btn-sm" disabled={busy} onClick={() => void cancel()}>
        {T.cancel}
      </button>
    </div>
  );
}

export function EmailSection({ email }: { email: string }) {
  const form = useForm("emailRequestSchema", FIELDS);
  const submit = form.handleSubmit(async (values) => {
    try {
      notify("success", await requestEmailChange(values.email.trim()));
      form.ref.current?.reset();
    } catch (error) {
      if (error instanceof ReauthCancelled) return;
      const atField = refusal(error);
      if (atField) {
        form.setErrors({ email: atField });
        document.getElementById("field-email")?.focus();
      } else notify("error", accountActionErrorMessage(asApiError(error)));
    }
  });
  return (
    <SecurityCard title={T.title} marker="email-change">
      <p className="text-sm">
        {T.current}:{" "}
        <span className="font-medium break-words" data-current-email>
          {email}
        </span>
      </p>
      <PendingChange />
      <form ref={form.ref} className="flex flex-col gap-4" method="post" noValidate onSubmit={submit}>
        <p className="text-sm">{T.body}</p>
        <Field
          name="email"
          label={T.label}
          type="email"
          autoComplete="email"
          error={form.errors.email}
          onChange={form.onChange}
        />
        <div>
          <SubmitButton label={T.submit} busy={form.busy} />
        </div>
      </form>
    </SecurityCard>
  );
}
