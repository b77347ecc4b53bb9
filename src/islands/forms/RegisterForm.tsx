// /register: email, username, password, confirmPassword. On success a toast and /login (with a
// word that the verification mail is on its way); the API's
// refusals (duplicates, rule failures) show as the spec's toast and at the field they concern.
import { asApiError } from "../../lib/api-client.ts";
import { fieldErrorsFrom422, registerErrorField, registerErrorMessage } from "../../lib/error-messages.ts";
import { JUST_REGISTERED, navigate } from "../../lib/navigation.ts";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { registerAccount } from "../../stores/account.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["email", "username", "password", "confirmPassword"] as const;

/** /login with a word that a verification mail is waiting (LoginForm reads the flag). */
export const AFTER_REGISTERING = `/login?${JUST_REGISTERED}`;

export default function RegisterForm() {
  const form = useForm("registerSchema", FIELDS);

  const submit = form.handleSubmit(async (values) => {
    try {
      await registerAccount({ ...values, email: values.email.trim(), username: values.username.trim() });
      notifyAfterNavigation("success", TOAST.registered);
      navigate(AFTER_REGISTERING);
    } catch (error) {
      const failed = asApiError(error);
      const message = registerErrorMessage(failed);
      notify("error", message);
      const field = registerErrorField(failed);
      form.setErrors({ ...fieldErrorsFrom422(failed), ...(field ? { [field]: message } : {}) });
    }
  });

  const field = (name: (typeof FIELDS)[number]) => ({
    name,
    error: form.errors[name],
    onChange: form.onChange,
  });

  return (
    <IslandForm formRef={form.ref} onSubmit={submit}>
      <Field {...field("email")} label="Email" type="email" autoComplete="email" />
      <Field {...field("username")} label="Username" autoComplete="username" />
      <Field
        {...field("password")}
        label="Password"
        type="password"
        autoComplete="new-password"
        helper={UI_TEXT.passwordHelper}
      />
      <Field
        {...field("confirmPassword")}
        label="Confirm password"
        type="password"
        autoComplete="new-password"
      />
      <SubmitButton label={UI_TEXT.register} busy={form.busy} />
    </IslandForm>
  );
}
