// The organisation pages' dialogs: one that asks before acting (a failure keeps it open and says
// why, in the server's words where it has some), and one that shows what an action did.
import { type ReactNode, useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { orgErrorMessage } from "../../lib/org-view.ts";
import { ReauthCancelled } from "../../stores/reauth.ts";
import { notify } from "../../stores/toast.ts";
import { Dialog } from "../profile/Dialog.tsx";

export function OrgConfirmDialog({
  open,
  title,
  keepLabel,
  confirmLabel,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  keepLabel: string;
  confirmLabel: string;
  /** The action; resolves once done (its own success toast or result included). */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await onConfirm();
    } catch (error) {
      // Closing the password confirmation is the visitor's choice, not a failure to report.
      if (!(error instanceof ReauthCancelled)) notify("error", orgErrorMessage(asApiError(error)));
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
        // Stacked on a phone, side by side from sm up: two long labels ("Keep organisation",
        // "Delete and lose them") do not fit one row of a 390 px screen's dialog.
        <div className="flex w-full flex-col gap-2 sm:w-auto sm:flex-row sm:flex-wrap sm:justify-end">
          <button type="button" className="btn" onClick={onClose}>
            {keepLabel}
          </button>
          <button type="button" className="btn btn-error" onClick={() => void confirm()} disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {confirmLabel}
          </button>
        </div>
      }
    >
      {children}
    </Dialog>
  );
}

/** A list of API keys by name and prefix, as the removal and role dialogs name them. */
export function KeyList({ keys }: { keys: readonly { id: string; name: string; prefix: string }[] }) {
  return (
    <ul className="mt-2 flex flex-col gap-1 text-sm" data-key-list>
      {keys.map((key) => (
        <li key={key.id} className="flex flex-wrap items-baseline gap-2">
          <span className="font-medium">{key.name}</span>
          <span className="font-mono text-xs text-base-content/80">{key.prefix}…</span>
        </li>
      ))}
    </ul>
  );
}
