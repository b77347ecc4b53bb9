// 'Revoke all API keys' asks first: every program using any key stops working at once. The mail
// after a password reset links here (#revoke-all), and the page opens this dialog for it.
import { useState } from "react";
import { asApiError } from "../../lib/api-client.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { revokeAllApiKeys } from "../../stores/api-keys.ts";
import { notify } from "../../stores/toast.ts";
import { Dialog } from "../profile/Dialog.tsx";

const T = API_KEYS_TEXT;

export function RevokeAllDialog({
  open,
  count,
  onClose,
}: {
  open: boolean;
  count: number;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const revokeAll = async () => {
    if (busy) return;
    setBusy(true);
    try {
      notify("success", T.revokedAll(await revokeAllApiKeys()));
      onClose();
    } catch (error) {
      notify("error", accountActionErrorMessage(asApiError(error)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={T.revokeAllTitle}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {T.cancel}
          </button>
          <button type="button" className="btn btn-error" onClick={revokeAll} disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {T.confirmRevokeAll}
          </button>
        </>
      }
    >
      <p className="text-sm">{T.revokeAllBody(count)}</p>
    </Dialog>
  );
}
