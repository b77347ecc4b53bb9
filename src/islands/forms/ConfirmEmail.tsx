// /confirm-email/{token}: follows an e-mail change link on load, once. The new address's link says
// the address changed; the old address's way back says so and that every browser was signed out,
// pointing to a password reset. A used or expired link says so.
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

export default function ConfirmEmail() {
  const [result, setResult] = useState<string | null | "pending">("pending");

  useEffect(() => {
    const token = routeParam(window.location.pathname, "/confirm-email/");
    if (!token) {
      setResult(null);
      return;
    }
    void confirmOnce(token).then((detail) => {
      // The way back signed every browser out, this one too.
      if (detail === EMAIL_CHANGE_DETAIL.reverted) forgetSession();
      setResult(detail);
    });
  }, []);

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
