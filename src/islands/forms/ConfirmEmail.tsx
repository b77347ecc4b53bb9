// /confirm-email/{token}: follows an e-mail change link, once. The new address's link is followed on
// load and says the address changed. The old address's way back (`?back=1`) asks first, since it
// signs every browser out and ends the password, and a mail scanner may open links; followed, it
// says so, pointing to a password reset. A used or expired link says so.
import { useEffect, useState } from "react";
import { EMAIL_CHANGE_DETAIL } from "../../../contract/email-change-messages.ts";
import { CONFIRM_EMAIL_TEXT } from "../../lib/confirm-email-text.ts";
import { routeParam } from "../../lib/route-param.ts";
import { confirmEmailChange } from "../../stores/account.ts";
import { forgetSession } from "../../stores/auth.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { InvalidToken } from "./InvalidToken.tsx";

const T = CONFIRM_EMAIL_TEXT;

// A link is single use: never send it twice from one page, even if the effect runs twice.
let started: Promise<string | null> | null = null;

function confirmOnce(token: string): Promise<string | null> {
  const once = started ?? confirmEmailChange(token).catch(() => null);
  started = once;
  return once;
}

function follow(token: string, done: (detail: string | null) => void): void {
  void confirmOnce(token).then((detail) => {
    // The way back signed every browser out, this one too.
    if (detail === EMAIL_CHANGE_DETAIL.reverted) forgetSession();
    done(detail);
  });
}

export default function ConfirmEmail() {
  const [result, setResult] = useState<string | null | "pending">("pending");
  // The way back's token, while the page waits for the owner's click.
  const [asking, setAsking] = useState<string | null>(null);

  useEffect(() => {
    const token = routeParam(window.location.pathname, "/confirm-email/");
    if (!token) {
      setResult(null);
      return;
    }
    if (new URLSearchParams(window.location.search).has("back")) setAsking(token);
    else follow(token, setResult);
  }, []);

  if (asking)
    return (
      <div className="flex flex-col gap-4" data-confirm-email-back>
        <p className="text-sm">{T.backIntro}</p>
        <button
          type="button"
          className="btn btn-error"
          onClick={() => {
            setAsking(null);
            follow(asking, setResult);
          }}
        >
          {T.backConfirm}
        </button>
      </div>
    );
  if (result === "pending") return <LoadingState message={T.pending} />;
  if (result === null) return <InvalidToken linkHref="/profile/security" linkText={T.profileLink} />;
  const reverted = result === EMAIL_CHANGE_DETAIL.reverted;
  return (
    <div className="flex flex-col gap-4" data-confirm-email-success>
      <p role="status" className="alert alert-success">
        {result}
      </p>
      <a href={reverted ? "/forgot-password" : "/profile/security"} className="btn btn-primary">
        {reverted ? T.forgotLink : T.profileLink}
      </a>
    </div>
  );
}
