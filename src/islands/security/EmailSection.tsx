// /profile/security's e-mail address: the current one, and a new one that takes over only when
// the link mailed to it is followed (the server says so, and tells the old address).
import { asApiError } from "../../lib/api-client.ts";
import {
  API_DETAIL,
  accountActionErrorMessage,
  detailText,
  fieldErrorsFrom422,
} from "../../lib/error-messages.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { requestEmailChange } from "../../stores/security.ts";
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
      <form ref={form.ref} className="flex flex-col gap-4" method="post" noValidate onSubmit={submit}>
        <p className="text-sm">
          {T.current}:{" "}
          <span className="font-medium" data-current-email>
            {email}
          </span>
        </p>
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
