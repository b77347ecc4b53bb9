// 'Revoke' asks first: programs using the key stop working at once.
import { useState } from "react";
import type { ApiKey } from "../../../contract/api-keys.ts";
import { asApiError } from "../../lib/api-client.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { accountActionErrorMessage } from "../../lib/error-messages.ts";
import { revokeApiKey } from "../../stores/api-keys.ts";
import { notify } from "../../stores/toast.ts";
import { Dialog } from "../profile/Dialog.tsx";

const T = API_KEYS_TEXT;

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const revoke = async () => {
    if (!apiKey || busy) return;
    setBusy(true);
    try {
      await revokeApiKey(apiKey.id);
      notify("success", T.revoked);
      onClose();
    } catch (error) {
      notify("error", accountActionErrorMessage(asApiError(error)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={apiKey !== null}
      title={T.revokeTitle}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {T.keepKey}
          </button>
          <button type="button" className="btn btn-error" onClick={revoke} disabled={busy}>
            {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {T.confirmRevoke}
          </button>
        </>
      }
    >
      <p className="text-sm">{apiKey ? T.revokeBody(apiKey.name) : ""}</p>
    </Dialog>
  );
}
