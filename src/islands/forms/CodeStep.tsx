// The second step of /login for an account with two-factor sign-in on: a code from the
// authenticator app, or a recovery code. A wrong code is said at the field (with the tries left);
// a step that ended (5 minutes, 5 wrong codes) sends the visitor back to the password. Only the
// methods the step lists are offered: a staff account whose only second factor is a passkey
// (decision 046) gets the passkey button alone, never a code field no code could answer.
import { type ReactNode, useState } from "react";
import { DETAIL } from "../../../contract/messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { CODE_STEP_TEXT as T } from "../../lib/code-step-text.ts";
import { loginErrorMessage } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { TOAST } from "../../lib/ui-text.ts";
import { logInWithCode } from "../../stores/auth.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { Field, IslandForm, SubmitButton } from "./Field.tsx";
import { useForm } from "./use-form.ts";

const FIELDS = ["code"] as const;

interface Props {
  mfaToken: string;
  /** What may answer the step (POST /v1/token's `methods`): a passkey only when the account has one. */
  methods: readonly string[];
  /** Back to the password form: the visitor asked, or the step ended. */
  onBack: () => void;
  /**
   * The passkey button, given by LoginForm rather than imported here: LoginForm shows it already,
   * and a module both import statically would become a chunk of its own on /login.
   */
  passkeyButton: (label: string, mfaToken: string) => ReactNode;
}

export function CodeStep({ mfaToken, methods, onBack, passkeyButton }: Props) {
  const form = useForm("mfaCodeBodySchema", FIELDS);
  const [recovery, setRecovery] = useState(false);

  const submit = form.handleSubmit(async ({ code }) => {
    try {
      const next = await logInWithCode(mfaToken, code.trim());
      notifyAfterNavigation("success", TOAST.loggedIn);
      navigate(next);
    } catch (error) {
      const failed = asApiError(error);
      const body = failed.detail;
      if (failed.status === 400 && body === DETAIL.incorrectCode) {
        const left = failed.triesLeft;
        form.setErrors({
          code: left === undefined ? DETAIL.incorrectCode : `${DETAIL.incorrectCode} (${T.triesLeft(left)})`,
        });
        document.getElementById("field-code")?.focus();
      } else if (failed.status === 400 && body === DETAIL.mfaStepExpired) {
        notify("error", DETAIL.mfaStepExpired);
        onBack();
      } else notify("error", loginErrorMessage(failed));
    }
  });

  const takesCodes = methods.includes("totp") || methods.includes("recovery_code");
  if (!takesCodes) {
    return (
      <div className="flex flex-col gap-5">
        <div data-code-step>
          <h2 className="text-lg font-semibold">{T.title}</h2>
          <p className="mt-1 text-sm text-base-content/80">{T.introPasskey}</p>
        </div>
        {passkeyButton(T.usePasskeyOnly, mfaToken)}
        <div className="text-sm">
          <button type="button" className="link" onClick={onBack}>
            {T.back}
          </button>
        </div>
      </div>
    );
  }

  return (
    <IslandForm formRef={form.ref} onSubmit={submit}>
      <div data-code-step>
        <h2 className="text-lg font-semibold">{T.title}</h2>
        <p className="mt-1 text-sm text-base-content/80">{recovery ? T.introRecovery : T.intro}</p>
      </div>
      <Field
        key={recovery ? "recovery" : "app"}
        name="code"
        label={recovery ? T.recoveryLabel : T.codeLabel}
        autoComplete={recovery ? "off" : "one-time-code"}
        inputMode={recovery ? "text" : "numeric"}
        error={form.errors.code}
        onChange={form.onChange}
      />
      <SubmitButton label={T.verify} busy={form.busy} />
      {methods.includes("webauthn") && passkeyButton(T.usePasskey, mfaToken)}
      <div className="flex flex-wrap justify-between gap-2 text-sm">
        <button
          type="button"
          className="link link-primary"
          onClick={() => {
            setRecovery(!recovery);
            form.setErrors({});
          }}
        >
          {recovery ? T.useApp : T.useRecovery}
        </button>
        <button type="button" className="link" onClick={onBack}>
          {T.back}
        </button>
      </div>
    </IslandForm>
  );
}
