// /login: username and password. A user who is already logged in goes to /. On success the token
// is stored, the user refetched, a toast shown and the browser sent to `originalPath` or /. An
// account with two-factor sign-in on answers with a code step first (CodeStep).
import { lazy, Suspense, useEffect, useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { isEmailNotVerified, loginErrorMessage } from "../../lib/error-messages.ts";
import { navigate, openedAfterRegistering, redirect } from "../../lib/navigation.ts";
import { PASSKEY_SIGN_IN_TEXT } from "../../lib/passkey-sign-in-text.ts";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { logIn } from "../../stores/auth.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { useSession } from "../auth/use-session.ts";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { PasskeyButton } from "./PasskeyButton.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["username", "password"] as const;

// Only accounts with two-factor sign-in on reach the code step: its code loads when the password
// step asks for it (and is fetched while the password is being checked), not with /login.
const loadCodeStep = () => import("./CodeStep.tsx").then((m) => ({ default: m.CodeStep }));
const CodeStep = lazy(loadCodeStep);

export default function LoginForm() {
  const { user } = useSession();
  const form = useForm("loginSchema", FIELDS);
  const [notVerified, setNotVerified] = useState(false);
  const [justRegistered, setJustRegistered] = useState(false);
  const [leaving, setLeaving] = useState(false);
  // Set when the password was right and the account wants its second factor.
  const [mfa, setMfa] = useState<{ token: string; methods: readonly string[] } | null>(null);

  useEffect(() => {
    if (user && !leaving) redirect("/");
  }, [user, leaving]);
  // After hydration: the flag is in the address, not in the prebuilt HTML.
  useEffect(() => setJustRegistered(openedAfterRegistering()), []);

  const submit = form.handleSubmit(async ({ username, password }) => {
    setNotVerified(false);
    void loadCodeStep();
    try {
      setLeaving(true);
      const next = await logIn(username.trim(), password);
      notifyAfterNavigation("success", TOAST.loggedIn);
      navigate(next);
    } catch (error) {
      const failed = asApiError(error);
      if (failed.mfaToken) {
        // Still leaving: the code step signs in next, and must not be sent to / meanwhile.
        setMfa({ token: failed.mfaToken, methods: failed.methods });
        return;
      }
      setLeaving(false);
      notify("error", loginErrorMessage(failed));
      setNotVerified(isEmailNotVerified(failed));
    }
  });

  if (mfa) {
    const back = () => {
      setMfa(null);
      setLeaving(false);
    };
    return (
      <Suspense fallback={<span role="status" className="loading loading-spinner" aria-label="Loading" />}>
        <CodeStep
          mfaToken={mfa.token}
          methods={mfa.methods}
          onBack={back}
          passkeyButton={(label, mfaToken) => <PasskeyButton label={label} mfaToken={mfaToken} />}
        />
      </Suspense>
    );
  }

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
      {justRegistered && !notVerified && (
        <div role="status" className="alert alert-info text-sm" data-check-inbox>
          <span>
            {UI_TEXT.checkInbox}{" "}
            <a href="/resend-email-verification" className="link font-medium">
              {UI_TEXT.resendVerification}
            </a>
          </span>
        </div>
      )}
      {notVerified && (
        <div role="alert" className="alert alert-warning text-sm" data-email-not-verified>
          <span>
            {UI_TEXT.emailNotVerifiedHint}{" "}
            <a href="/resend-email-verification" className="link font-medium">
              {UI_TEXT.resendVerification}
            </a>
          </span>
        </div>
      )}
      <SubmitButton label={UI_TEXT.logIn} busy={form.busy} />
      <div className="divider my-0 text-xs">or</div>
      <PasskeyButton label={PASSKEY_SIGN_IN_TEXT.button} onLeaving={setLeaving} />
    </IslandForm>
  );
}
