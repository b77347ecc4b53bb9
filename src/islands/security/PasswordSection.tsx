// /profile/security's "Change password": the current password and the new one twice, checked with
// the spec's rules as the register form is. A wrong current password is said at its field. On a
// two-factor account with an older session, the password dialog asks for the code first.
import { DETAIL } from "../../../contract/messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { changePassword } from "../../stores/security.ts";
import { notify } from "../../stores/toast.ts";
import { Field, SubmitButton } from "../forms/Field.tsx";
import { useForm } from "../forms/use-form.ts";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.password;
const FIELDS = ["currentPassword", "password", "confirmPassword"] as const;

export function PasswordSection() {
  const form = useForm("changePasswordFormSchema", FIELDS);
  const submit = form.handleSubmit(async ({ currentPassword, password }) => {
    try {
      await changePassword(currentPassword, password);
      form.ref.current?.reset();
      notify("success", T.done);
    } catch (error) {
      // Closing the code confirmation leaves the form as it was, to try again.
      if (error instanceof ReauthCancelled) return;
      const failed = asApiError(error);
      if (failed.status === 400) {
        form.setErrors({ currentPassword: DETAIL.incorrectPassword });
        document.getElementById("field-currentPassword")?.focus();
      } else notify("error", accountActionErrorMessage(failed));
    }
  });
  return (
    <SecurityCard title={T.title} marker="password-change">
      <form ref={form.ref} className="flex flex-col gap-4" method="post" noValidate onSubmit={submit}>
        <p className="text-sm">{T.body}</p>
        <Field
          name="currentPassword"
          label={T.current}
          type="password"
          autoComplete="current-password"
          error={form.errors.currentPassword}
          onChange={form.onChange}
        />
        <Field
          name="password"
          label={T.next}
          type="password"
          autoComplete="new-password"
          error={form.errors.password}
          onChange={form.onChange}
        />
        <Field
          name="confirmPassword"
          label={T.confirm}
          type="password"
          autoComplete="new-password"
          error={form.errors.confirmPassword}
          onChange={form.onChange}
        />
        <div>
          <SubmitButton label={T.submit} busy={form.busy} />
        </div>
      </form>
    </SecurityCard>
  );
}
