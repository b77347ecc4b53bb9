// The new key, shown this once with a copy button and the warning that it will not be shown again.

import type { CreatedApiKey } from "../../../contract/api-keys.ts";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { Dialog } from "../profile/Dialog.tsx";
import { CopyField } from "../token/CopyField.tsx";

const T = API_KEYS_TEXT;

export function NewKeyDialog({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  return (
    <Dialog
      open={created !== null}
      title={T.createdTitle}
      onClose={onClose}
      actions={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {T.done}
        </button>
      }
    >
      {created && (
        <div data-new-key>
          <p role="alert" className="alert alert-warning text-sm">
            {T.createdWarning}
          </p>
          <CopyField label={created.name} value={created.key} />
        </div>
      )}
    </Dialog>
  );
}
