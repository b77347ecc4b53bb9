// Home's first button: 'Log In' for visitors; for a user 'Get Bearer Token', which opens the
// 'Copy Bearer Token' dialog with the token in a read-only field and a copy button.

import { useStore } from "@nanostores/react";
import { useEffect, useId, useRef, useState } from "react";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { $auth } from "../../stores/auth.ts";
import { notify } from "../../stores/toast.ts";
import { useSession } from "../auth/use-session.ts";

/** Spec section 9: the copied indicator lasts 2000 ms. */
export const COPIED_INDICATOR_MS = 2000;

function TokenDialog({
  token,
  dialogRef,
}: {
  token: string;
  dialogRef: React.RefObject<HTMLDialogElement | null>;
}) {
  const titleId = useId();
  const fieldId = useId();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
      notify("success", TOAST.copied);
    } catch {
      // Without clipboard permission, select the token so Ctrl+C / long-press still works.
      const field = document.getElementById(fieldId);
      if (field instanceof HTMLInputElement) field.select();
    }
  };

  return (
    <dialog ref={dialogRef} className="modal" aria-labelledby={titleId}>
      <div className="modal-box text-start">
        <h2 id={titleId} className="text-lg font-bold">
          {UI_TEXT.token.title}
        </h2>
        <label htmlFor={fieldId} className="mt-4 block text-sm font-medium">
          Bearer token
        </label>
        <div className="join mt-1.5 w-full">
          <input
            id={fieldId}
            className="input join-item w-full font-mono text-xs"
            readOnly
            value={token}
            onFocus={(e) => e.currentTarget.select()}
          />
          <button type="button" className="btn btn-primary join-item min-w-24" onClick={copy}>
            {copied ? UI_TEXT.token.copied : UI_TEXT.token.copy}
          </button>
        </div>
        <p className="mt-3 text-sm text-base-content/80">
          Send it as <code>Authorization: Bearer &lt;token&gt;</code>. Keep it secret: it acts as you.
        </p>
        <div className="modal-action">
          <form method="dialog">
            <button type="submit" className="btn">
              {UI_TEXT.token.close}
            </button>
          </form>
        </div>
      </div>
      <form method="dialog" className="modal-backdrop">
        <button type="submit" tabIndex={-1}>
          {UI_TEXT.token.close}
        </button>
      </form>
    </dialog>
  );
}

export default function HomeAuthAction() {
  const { user } = useSession();
  const { token } = useStore($auth, { ssr: "initial" });
  const dialogRef = useRef<HTMLDialogElement>(null);

  if (!user || !token) {
    return (
      <a href="/login" className="btn btn-primary btn-lg btn-block">
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
        {UI_TEXT.token.open}
      </button>
      <TokenDialog token={token} dialogRef={dialogRef} />
    </>
  );
}
