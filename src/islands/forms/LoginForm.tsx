// /login: username and password. A user who is already logged in goes to /. On success the token
// is stored, the user refetched, a toast shown and the browser sent to `originalPath` or /.
import { useEffect, useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { isEmailNotVerified, loginErrorMessage } from "../../lib/error-messages.ts";
import { navigate, redirect } from "../../lib/navigation.ts";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { logIn } from "../../stores/auth.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { useSession } from "../auth/use-session.ts";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["username", "password"] as const;

export default function LoginForm() {
  const { user } = useSession();
  const form = useForm("loginSchema", FIELDS);
  const [notVerified, setNotVerified] = useState(false);
  const [leaving, setLeaving] = useState(false);

  useEffect(() => {
    if (user && !leaving) redirect("/");
  }, [user, leaving]);

  const submit = form.handleSubmit(async ({ username, password }) => {
    setNotVerified(false);
    try {
      setLeaving(true);
      const next = await logIn(username.trim(), password);
      notifyAfterNavigation("success", TOAST.loggedIn);
      navigate(next);
    } catch (error) {
      setLeaving(false);
      const failed = asApiError(error);
      notify("error", loginErrorMessage(failed));
      setNotVerified(isEmailNotVerified(failed));
    }
  });

  return (
    <IslandForm formRef={form.ref} onSubmit={submit}>
      <Field
        name="username"
        label="Username"
        autoComplete="username"
        error={form.errors.username}
        onChange={form.onChange}
      />
      <Field
        name="password"
        label="Password"
        type="password"
        autoComplete="current-password"
        labelLink={{ href: "/forgot-password", text: "Forgot password?" }}
        error={form.errors.password}
        onChange={form.onChange}
      />
      {notVerified && (
        <div role="alert" className="alert alert-warning text-sm" data-email-not-verified>
          <span>
            {UI_TEXT.emailNotVerifiedHint}{" "}
            <a href="/resend-email-verification" className="link font-medium">
              Resend verification e-mail
            </a>
          </span>
        </div>
      )}
      <SubmitButton label={UI_TEXT.logIn} busy={form.busy} />
    </IslandForm>
  );
}
