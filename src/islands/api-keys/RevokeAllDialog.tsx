// 'Revoke all API keys' asks first: every program using any key stops working at once. The mail
// after a password reset links here (#revoke-all), and the page opens this dialog for it.
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { revokeAllApiKeys } from "../../stores/api-keys.ts";
import { notify } from "../../stores/toast.ts";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";

const T = API_KEYS_TEXT;

export function RevokeAllDialog({
  open,
  onClose,
  reloadList = true,
}: {
  open: boolean;
  onClose: () => void;
  /** False where the page lists no keys (a billing member's): nothing to refresh. */
  reloadList?: boolean;
}) {
  return (
    <ConfirmDialog
      open={open}
      title={T.revokeAllTitle}
      keepLabel={T.cancel}
      confirmLabel={T.confirmRevokeAll}
      onClose={onClose}
      onConfirm={async () => notify("success", T.revokedAll(await revokeAllApiKeys(reloadList)))}
    >
      <p className="text-sm">{T.revokeAllBody}</p>
    </ConfirmDialog>
  );
}
