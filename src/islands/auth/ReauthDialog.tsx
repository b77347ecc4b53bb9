// "Confirm your password": opened by stores/reauth.ts when the API wants the password again for a
// sensitive action; confirming (or a passkey, when the account has one) retries the action by
// itself, cancelling leaves it undone. On an account with two-factor sign-in on it asks for a code
// beside the password, and says a wrong code beside the code's field. A staff account whose only
// second factor is a passkey is asked for the passkey alone, as at sign-in (decision 046).
import { useStore } from "@nanostores/react";
import { useState } from "react";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { ApiError, asApiError } from "../../lib/api-client.ts";
import { passkeyFailure } from "../../lib/passkey-failure.ts";
import { REAUTH_TEXT } from "../../lib/reauth-text.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { $reauth, cancelReauth, confirmPassword, confirmWithPasskey } from "../../stores/reauth.ts";
import { FieldError } from "../forms/Field.tsx";
import { SingleFieldInput, useSingleField } from "../forms/single-field.tsx";
import { Dialog } from "../profile/Dialog.tsx";

const T = REAUTH_TEXT;

/** What the dialog says for a refused password, next to the field. */
function refusal(error: unknown): string {
  const { status } = asApiError(error);
  if (status === 400) return DETAIL.incorrectPassword;
  if (status === 429) return ERROR_TEXT.tooManyRequests;
  return ERROR_TEXT.oops;
}

/** Whether POST /v1/reauth refused the code (not the password): said beside the code's field. */
function isCodeRefusal(error: unknown): boolean {
  const { status, detail } = asApiError(error);
  return status === 400 && (detail === DETAIL.incorrectCode || detail === DETAIL.reauthCodeRequired);
}

/**
 * What a refused passkey says: the server's reason, or what the browser's dialog said (closed, or
 * an address no passkey works on); without the password as the way out when the dialog does not
 * ask for it.
 */
export function passkeyRefusal(error: unknown, asksPassword: boolean): string {
  if (!(error instanceof ApiError)) {
    if (passkeyFailure(error) === "wrongAddress")
      return asksPassword ? T.passkeyWrongAddress : T.passkeyWrongAddressOnly;
    return asksPassword ? T.passkeyCancelled : T.passkeyCancelledOnly;
  }
  const { status, detail } = asApiError(error);
  if (!asksPassword && status === 400 && detail === DETAIL.passkeyNotConfirmed) {
    return T.passkeyNotConfirmedOnly;
  }
  if (status === 400 && typeof detail === "string") return detail;
  return refusal(error);
}

export function ReauthDialog() {
  const { open, passkey, code, password: asksPassword } = useStore($reauth);
  const field = useSingleField({ required: VALIDATION.passwordRequired, refusal, asTyped: true });
  const codeField = useSingleField({ required: VALIDATION.codeRequired, refusal });
  const formId = `${field.id}-form`;
  const [passkeyState, setPasskeyState] = useState<{ busy: boolean; error?: string }>({ busy: false });

  /** Back to empty, for the next time the dialog opens. */
  const clear = () => {
    field.reset();
    codeField.reset();
    setPasskeyState({ busy: false });
  };

  const close = () => {
    clear();
    cancelReauth();
  };

  const confirmByPasskey = async () => {
    setPasskeyState({ busy: true });
    try {
      await confirmWithPasskey();
      clear();
    } catch (error) {
      setPasskeyState({ busy: false, error: passkeyRefusal(error, asksPassword) });
    }
  };
  const busy = field.busy || passkeyState.busy;

  const submit = field.onSubmit(async (password) => {
    const typedCode = code ? (codeField.inputRef.current?.value ?? "").trim() : undefined;
    if (typedCode === "") {
      codeField.setError(VALIDATION.codeRequired);
      codeField.inputRef.current?.focus();
      return;
    }
    try {
      await confirmPassword(password, typedCode);
    } catch (error) {
      if (!isCodeRefusal(error)) throw error;
      codeField.setError(DETAIL.incorrectCode);
      codeField.inputRef.current?.select();
      return;
    }
    clear();
  });

  return (
    <Dialog
      open={open}
      title={asksPassword ? T.title : T.titlePasskey}
      onClose={() => {
        if ($reauth.get().open) close();
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {T.cancel}
          </button>
          {asksPassword && (
            <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
              {field.busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
              {field.busy ? T.confirming : T.confirm}
            </button>
          )}
        </>
      }
    >
      <form id={formId} className="flex flex-col gap-3" noValidate onSubmit={submit} data-reauth-form>
        <p className="text-sm">{!asksPassword ? T.bodyPasskey : code ? T.bodyWithCode : T.body}</p>
        {asksPassword && (
          <SingleFieldInput
            field={field}
            name="password"
            label={T.password}
            type="password"
            autoComplete="current-password"
          />
        )}
        {code && (
          <SingleFieldInput field={codeField} name="code" label={T.code} autoComplete="one-time-code" short />
        )}
        {passkey && (
          <div className="flex flex-col gap-2">
            <button
              type="button"
              className="btn btn-outline btn-sm self-start"
              onClick={() => void confirmByPasskey()}
              disabled={busy}
              data-reauth-passkey
            >
              {passkeyState.busy && (
                <span className="loading loading-spinner loading-sm" aria-hidden="true" />
              )}
              {asksPassword ? T.usePasskey : T.usePasskeyOnly}
            </button>
            {passkeyState.error && (
              <FieldError id={undefined} name="passkey" message={passkeyState.error} alert />
            )}
          </div>
        )}
      </form>
    </Dialog>
  );
}
