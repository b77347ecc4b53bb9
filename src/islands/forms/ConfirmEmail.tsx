// /confirm-email/{token}: follows an e-mail change link, once. The new address's link is followed on
// load and says the address changed. The old address's way back asks first, since it signs every
// browser out and ends the password, and a mail scanner may open links: its link says so
// (`?back=1`), and one that lost that mark is told apart by the server, which acts on a way back only
// when the owner's click sends `revert` (409 `revert_required` otherwise). Followed, it says so,
// pointing to a password reset. A used or expired link says so, and so does an address another
// account took meanwhile.
import { useEffect, useState } from "react";
import { EMAIL_CHANGE_DETAIL } from "../../../contract/email-change-messages.ts";
import { asApiError } from "../../lib/api-client.ts";
import { CONFIRM_EMAIL_TEXT } from "../../lib/confirm-email-text.ts";
import { routeParam } from "../../lib/route-param.ts";
import { confirmEmailChange, isRevertRequired } from "../../stores/account.ts";
import { forgetSession } from "../../stores/auth.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { InvalidToken } from "./InvalidToken.tsx";

const T = CONFIRM_EMAIL_TEXT;

/**
 * What following the link came to: the server's words, a way back to ask about, a failure that
 * leaves the link usable (no answer, too many tries, a server error: try again), the address taken
 * by another account, or null (used, expired or unknown).
 */
type Outcome =
  | { detail: string }
  | { ask: string }
  | { retry: string; revert: boolean }
  | { taken: true }
  | null;

async function follow(token: string, revert: boolean): Promise<Outcome> {
  try {
    const detail = await confirmEmailChange(token, revert);
    // The way back signed every browser out, this one too.
    if (detail === EMAIL_CHANGE_DETAIL.reverted) forgetSession();
    return { detail };
  } catch (error) {
    if (isRevertRequired(error)) return { ask: token };
    const status = asApiError(error).status;
    // 409 (without revert_required): another account took the address meanwhile.
    if (status === 409) return { taken: true };
    // 400: the link is used, expired or unknown; 422: no token the API could read. Anything else
    // did nothing to the link.
    return status === 400 || status === 422 ? null : { retry: token, revert };
  }
}

// A link is single use: never send it twice from one page load, even if the effect runs twice.
let started: Promise<Outcome> | null = null;

function followOnLoad(token: string): Promise<Outcome> {
  started ??= follow(token, false);
  return started;
}

export default function ConfirmEmail() {
  const [outcome, setOutcome] = useState<Outcome | "pending">("pending");

  useEffect(() => {
    const token = routeParam(window.location.pathname, "/confirm-email/");
    if (!token) setOutcome(null);
    else if (new URLSearchParams(window.location.search).has("back")) setOutcome({ ask: token });
    else void followOnLoad(token).then(setOutcome);
  }, []);

  // On the owner's click: the way back's confirmation, or a try again after a failure.
  const followAgain = (token: string, revert: boolean) => {
    setOutcome("pending");
    void follow(token, revert).then(setOutcome);
  };

  if (outcome === "pending") return <LoadingState message={T.pending} />;
  if (outcome === null) return <InvalidToken linkHref="/profile/security" linkText={T.profileLink} />;
  if ("taken" in outcome) {
    return (
      <div className="flex flex-col gap-4" data-confirm-email-taken>
        <p role="alert" className="alert alert-warning">
          {T.taken}
        </p>
        <a href="/profile/security" className="btn btn-primary">
          {T.profileLink}
        </a>
      </div>
    );
  }
  if ("retry" in outcome) {
    const { retry: token, revert } = outcome;
    return (
      <div className="flex flex-col gap-4" data-confirm-email-retry>
        <p role="alert" className="alert alert-warning">
          {T.failed}
        </p>
        <button type="button" className="btn btn-primary" onClick={() => followAgain(token, revert)}>
          {T.retry}
        </button>
      </div>
    );
  }
  if ("ask" in outcome) {
    const token = outcome.ask;
    return (
      <div className="flex flex-col gap-4" data-confirm-email-back>
        <p className="text-sm">{T.backIntro}</p>
        <button type="button" className="btn btn-error" onClick={() => followAgain(token, true)}>
          {T.backConfirm}
        </button>
      </div>
    );
  }
  const reverted = outcome.detail === EMAIL_CHANGE_DETAIL.reverted;
  return (
    <div className="flex flex-col gap-4" data-confirm-email-success>
      <p role="status" className="alert alert-success">
        {outcome.detail}
      </p>
      <a href={reverted ? "/forgot-password" : "/profile/security"} className="btn btn-primary">
        {reverted ? T.forgotLink : T.profileLink}
      </a>
    </div>
  );
}
