// Home's first button: 'Log In' for visitors; for a user 'Get Bearer Token', which opens the
// 'Copy Bearer Token' dialog with the token in a read-only field and a copy button, when it
// expires (Berlin time with its zone, as /profile says times), and a link to API keys (what a
// program should use instead of a 24-hour token).

import { useStore } from "@nanostores/react";
import { useId, useRef } from "react";
import { berlinDayAndTime } from "../../lib/berlin-time.ts";
import { tokenExpiresAt } from "../../lib/token-expiry.ts";
import { TOKEN_TEXT } from "../../lib/token-text.ts";
import { UI_TEXT } from "../../lib/ui-text.ts";
import { $auth } from "../../stores/auth.ts";
import { useSession } from "../auth/use-session.ts";
import { CopyField } from "./CopyField.tsx";

function TokenDialog({
  token,
  dialogRef,
}: {
  token: string;
  dialogRef: React.RefObject<HTMLDialogElement | null>;
}) {
  const titleId = useId();
  const expiresAt = tokenExpiresAt(token);
  const expires = expiresAt && berlinDayAndTime(expiresAt);

  return (
    <dialog ref={dialogRef} className="modal" aria-labelledby={titleId}>
      <div className="modal-box text-start">
        <h2 id={titleId} className="text-lg font-bold">
          {TOKEN_TEXT.title}
        </h2>
        <CopyField label="Bearer token" value={token} />
        <p className="mt-3 text-sm text-base-content/80">
          Send it as <code>Authorization: Bearer &lt;token&gt;</code>. Keep it secret: it acts as you.{" "}
          {TOKEN_TEXT.personalCredits}
        </p>
        {expires && (
          <p className="mt-2 text-sm text-base-content/80" data-token-expires>
            {TOKEN_TEXT.expires(expires)}
          </p>
        )}
        <p className="mt-2 text-sm text-base-content/80">
          {TOKEN_TEXT.forPrograms}{" "}
          <a href="/profile/api-keys" className="link link-primary">
            {TOKEN_TEXT.apiKeysLink}
          </a>
        </p>
        <div className="modal-action">
          <form method="dialog">
            <button type="submit" className="btn">
              {TOKEN_TEXT.close}
            </button>
          </form>
        </div>
      </div>
      {/* A click beside the box closes it too. Out of the tab order and hidden from assistive
          technology: a second button named "Close" only made the dialog's one way out ambiguous. */}
      <form method="dialog" className="modal-backdrop" aria-hidden="true">
        <button type="submit" tabIndex={-1}>
          {TOKEN_TEXT.close}
        </button>
      </form>
    </dialog>
  );
}

export default function HomeAuthAction() {
  const { user, status } = useSession();
  const { token } = useStore($auth, { ssr: "initial" });
  const dialogRef = useRef<HTMLDialogElement>(null);

  if (!user || !token) {
    return (
      <a
        href="/login"
        className="btn btn-primary btn-lg btn-block"
        data-pending={status === "unknown" || undefined}
      >
        {UI_TEXT.logIn}
      </a>
    );
  }
  return (
    <>
      <button
        type="button"
        className="btn btn-primary btn-lg btn-block"
        onClick={() => dialogRef.current?.showModal()}
      >
        {TOKEN_TEXT.open}
      </button>
      <TokenDialog token={token} dialogRef={dialogRef} />
    </>
  );
}
