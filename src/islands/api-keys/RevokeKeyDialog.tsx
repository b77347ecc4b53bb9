// 'Revoke' asks first: programs using the key stop working at once.
import type { ApiKey } from "../../../contract/api-keys.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { revokeApiKey } from "../../stores/api-keys.ts";
import { notify } from "../../stores/toast.ts";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";

const T = API_KEYS_TEXT;

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  return (
    <ConfirmDialog
      open={apiKey !== null}
      title={T.revokeTitle}
      keepLabel={T.keepKey}
      confirmLabel={T.confirmRevoke}
      onClose={onClose}
      onConfirm={async () => {
        if (!apiKey) return;
        await revokeApiKey(apiKey.id);
        notify("success", T.revoked);
      }}
    >
      <p className="text-sm">{apiKey ? T.revokeBody(apiKey.name) : ""}</p>
    </ConfirmDialog>
  );
}
