// /profile/security's "Sign out everywhere": every access token of the account ends on the server
// (POST /v1/logout/all), this browser's too, so the page then goes to / like Sign Out.
import { useState } from "react";
import { navigate } from "../../lib/navigation.ts";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { signOutEverywhere } from "../../stores/security.ts";
import { notifyAfterNavigation } from "../../stores/toast.ts";
import { ConfirmDialog } from "../profile/ConfirmDialog.tsx";
import { SecurityCard } from "./SecurityCard.tsx";

const T = SECURITY_TEXT.sessions;

export function SessionsSection() {
  const [asking, setAsking] = useState(false);
  return (
    <SecurityCard title={T.title} marker="sessions">
      <p className="text-sm">{T.body}</p>
      <div>
        <button type="button" className="btn btn-error btn-sm" onClick={() => setAsking(true)}>
          {T.action}
        </button>
      </div>
      <ConfirmDialog
        open={asking}
        title={T.confirmTitle}
        keepLabel={T.keep}
        confirmLabel={T.action}
        onConfirm={async () => {
          await signOutEverywhere();
          notifyAfterNavigation("success", T.done);
          navigate("/");
        }}
        onClose={() => setAsking(false)}
      >
        <p className="text-sm">{T.confirmBody}</p>
      </ConfirmDialog>
    </SecurityCard>
  );
}
