// "Sign in with a passkey" (on /login, and in the code step as the second factor): the browser's
// passkey dialog, then the session as after any sign-in. Cancelling the dialog only says so.
import { useState } from "react";
import { ApiError, asApiError } from "../../lib/api-client.ts";
import { loginErrorMessage } from "../../lib/error-messages.ts";
import { navigate } from "../../lib/navigation.ts";
import { passkeyFailure } from "../../lib/passkey-failure.ts";
import { PASSKEY_SIGN_IN_TEXT } from "../../lib/passkey-sign-in-text.ts";
import { TOAST } from "../../lib/ui-text.ts";
import { logInWithPasskey } from "../../stores/auth.ts";
import { notify, notifyAfterNavigation } from "../../stores/toast.ts";
import { useHydrated } from "../auth/use-hydrated.ts";

interface Props {
  label: string;
  /** The second factor of this sign-in step; without it, a passwordless sign-in. */
  mfaToken?: string;
  /** Called before navigating away, so the form does not send the visitor to / meanwhile. */
  onLeaving?: (leaving: boolean) => void;
}

/** What a failed passkey sign-in says: the server's reason, or that the dialog was closed. */
function failure(error: unknown): string {
  // Signing in, the browser holds no passkey it could have added twice: any other failure is a cancel.
  if (!(error instanceof ApiError))
    return passkeyFailure(error) === "wrongAddress"
      ? PASSKEY_SIGN_IN_TEXT.wrongAddress
      : PASSKEY_SIGN_IN_TEXT.cancelled;
  const failed = asApiError(error);
  if (failed.status === 400 && typeof failed.detail === "string") return failed.detail;
  return loginErrorMessage(failed);
}

export function PasskeyButton({ label, mfaToken, onLeaving }: Props) {
  const [busy, setBusy] = useState(false);
  // Disabled until the island runs: a click before that would do nothing. No colour transition:
  // halfway from the disabled grey the label's contrast is too low, and axe may look just then.
  const hydrated = useHydrated();
  const signIn = async () => {
    if (busy) return;
    setBusy(true);
    onLeaving?.(true);
    try {
      const next = await logInWithPasskey(mfaToken);
      notifyAfterNavigation("success", TOAST.loggedIn);
      navigate(next);
    } catch (error) {
      onLeaving?.(false);
      notify("error", failure(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className="btn btn-outline w-full transition-none"
      onClick={() => void signIn()}
      disabled={busy || !hydrated}
      data-passkey-sign-in
    >
      {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
      {label}
    </button>
  );
}
