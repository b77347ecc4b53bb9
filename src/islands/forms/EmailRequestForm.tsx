// The one-field e-mail forms: /forgot-password (reset link) and /resend-email-verification. Both
// go to / with a toast on success and show the spec's "Oops" message on failure.
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage, fieldErrorsFrom422 } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { requestPasswordReset, resendVerification } from "../../stores/account.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["email"] as const;

const PURPOSES = {
  "forgot-password": {
    send: requestPasswordReset,
    done: TOAST.resetLinkSent,
    helper: UI_TEXT.forgotPassword.helper,
  },
  "resend-verification": { send: resendVerification, done: TOAST.verificationSent, helper: undefined },
} as const;

interface Props {
  purpose: keyof typeof PURPOSES;
}

export default function EmailRequestForm({ purpose }: Props) {
  const form = useForm("emailRequestSchema", FIELDS);
  const { send, done, helper } = PURPOSES[purpose];

  const submit = form.handleSubmit(async ({ email }) => {
    try {
      await send({ email: email.trim() });
      notifyAfterNavigation("success", done);
      navigate("/");
    } catch (error) {
      const failed = asApiError(error);
      notify("error", accountActionErrorMessage(failed));
      form.setErrors(fieldErrorsFrom422(failed));
    }
  });

  return (
    <IslandForm formRef={form.ref} onSubmit={submit}>
      <Field
        name="email"
        label="Email"
        type="email"
        autoComplete="email"
        placeholder={UI_TEXT.forgotPassword.emailPlaceholder}
        helper={helper}
        error={form.errors.email}
        onChange={form.onChange}
      />
      <SubmitButton label={UI_TEXT.submit} busy={form.busy} />
    </IslandForm>
  );
}
