// A dialog that asks before an action that cannot be undone: a button that keeps things as they
// are, and one that acts (with a spinner while it runs). A failure is said in a toast and the
// dialog stays open; success closes it.
import { type ReactNode, useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { Dialog } from "./Dialog.tsx";

interface Props {
  open: boolean;
  title: string;
  keepLabel: string;
  confirmLabel: string;
  /** The action; its own success toast included. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}

export function ConfirmDialog({ open, title, keepLabel, confirmLabel, onConfirm, onClose, children }: Props) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await onConfirm();
      onClose();
    } catch (error) {
      // Closing the password confirmation is the visitor's choice, not a failure to report.
      if (!(error instanceof ReauthCancelled)) notify("error", accountActionErrorMessage(asApiError(error)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {keepLabel}
          </button>
          <button type="button" className="btn btn-error" onClick={confirm} disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
