// "Confirm your password": opened by stores/reauth.ts when the API wants the password again for a
// sensitive action; confirming retries the action by itself, cancelling leaves it undone.
import { useStore } from "@nanostores/react";
import { type FormEvent, useId, useRef, useState } from "react";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { REAUTH_TEXT } from "../../lib/reauth-text.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { $reauth, cancelReauth, confirmPassword } from "../../stores/reauth.ts";
import { Dialog } from "../profile/Dialog.tsx";

const T = REAUTH_TEXT;

/** What the dialog says for a refused password, next to the field. */
function refusal(status: number | undefined): string {
  if (status === 400) return DETAIL.incorrectPassword;
  if (status === 429) return ERROR_TEXT.tooManyRequests;
  return ERROR_TEXT.oops;
}

export function ReauthDialog() {
  const { open } = useStore($reauth);
  const formId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setError(null);
    if (inputRef.current) inputRef.current.value = "";
    cancelReauth();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const password = inputRef.current?.value ?? "";
    if (password === "") {
      setError(VALIDATION.passwordRequired);
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      await confirmPassword(password);
      setError(null);
      if (inputRef.current) inputRef.current.value = "";
    } catch (failure) {
      setError(refusal(asApiError(failure).status));
      inputRef.current?.select();
    } finally {
      setBusy(false);
    }
  };

  const inputId = `${formId}-password`;
  const errorId = `${inputId}-error`;
  return (
    <Dialog
      open={open}
      title={T.title}
      onClose={() => {
        if ($reauth.get().open) close();
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            {T.cancel}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {busy ? T.confirming : T.confirm}
          </button>
        </>
      }
    >
      <form id={formId} className="flex flex-col gap-3" noValidate onSubmit={submit} data-reauth-form>
        <p className="text-sm">{T.body}</p>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={inputId} className="text-sm font-medium">
            {T.password}
          </label>
          <input
            ref={inputRef}
            id={inputId}
            name="password"
            type="password"
            autoComplete="current-password"
            className={`input w-full ${error ? "input-error" : ""}`}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={() => setError(null)}
          />
          {error && (
            <p id={errorId} className="text-sm text-error" role="alert">
              {error}
            </p>
          )}
        </div>
      </form>
    </Dialog>
  );
}
