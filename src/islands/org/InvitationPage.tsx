// /invitations/{token} (public, noindex): the organisation, the role and who invites. Signed in,
// Accept is a button (never done on load); signed out, log in or register first and come back here
// (originalPath, which the sign-in takes once). A wrong address gets the server's words, with the
// invited address masked.
import { useEffect, useRef, useState } from "react";
import type { PublicInvitation } from "../../../contract/orgs.ts";
import { asApiError } from "../../lib/api-client.ts";
import { chooseOrganization, saveOriginalPath } from "../../lib/auth-storage.ts";
import { detailText } from "../../lib/error-messages.ts";
import { isoDay } from "../../lib/format-date.ts";
import { INVITATION_TEXT } from "../../lib/invitation-text.ts";
import { navigate } from "../../lib/navigation.ts";
import { ROLE_NAMES, ROLE_SUMMARIES } from "../../lib/role-text.ts";
import { routeParam } from "../../lib/route-param.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { acceptInvitation, loadInvitation } from "../../stores/invitation.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { useSession } from "../auth/use-session.ts";

const T = INVITATION_TEXT;

type Loaded =
  | { status: "loading" }
  | { status: "invalid" }
  | { status: "failed" }
  | { status: "ready"; invitation: PublicInvitation };

type Joined = { id: string; name: string };

const tokenOfPage = () => routeParam(window.location.pathname, "/invitations/");

function Facts({ invitation }: { invitation: PublicInvitation }) {
  const from = invitation.invited_by;
  return (
    <dl className="grid gap-3 text-sm" data-invitation-facts>
      <div>
        <dt className="text-xs text-base-content/70">{T.role}</dt>
        <dd className="font-medium">{ROLE_NAMES[invitation.role]}</dd>
        <dd className="text-base-content/80">{ROLE_SUMMARIES[invitation.role]}</dd>
      </div>
      {from && (
        <div>
          <dt className="text-xs text-base-content/70">{T.from}</dt>
          <dd className="break-all">
            {from.username} ({from.email})
          </dd>
        </div>
      )}
      <div>
        <dt className="text-xs text-base-content/70">{T.expires}</dt>
        <dd>{isoDay(invitation.expires_at)}</dd>
      </div>
    </dl>
  );
}

/**
 * Log In or Register, each coming back here once signed in. The way back is kept as soon as this
 * shows, so that the top bar's Log In and Register come back here too (ORGANISATIONS.md: "Signed
 * out: log in or register, then back here").
 */
function SignInFirst() {
  useEffect(() => saveOriginalPath(window.location.pathname), []);
  const go = (path: string) => {
    saveOriginalPath(window.location.pathname);
    navigate(path);
  };
  return (
    <div className="flex flex-col gap-3" data-invitation-signed-out>
      <p className="text-sm">{T.signInFirst}</p>
      <div className="grid grid-cols-2 gap-2">
        <button type="button" className="btn btn-primary" onClick={() => go("/login")}>
          {T.logIn}
        </button>
        <button type="button" className="btn btn-outline" onClick={() => go("/register")}>
          {T.register}
        </button>
      </div>
    </div>
  );
}

function AcceptButton({ onJoined }: { onJoined: (org: Joined) => void }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const accept = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const { organization } = await acceptInvitation(tokenOfPage());
      onJoined({ id: organization.id, name: organization.name ?? "" });
    } catch (error) {
      const failed = asApiError(error);
      // 403: another address (masked) or an unverified one; 404: used, revoked or expired meanwhile.
      const detail = failed.status === 403 || failed.status === 404 ? detailText(failed.detail) : "";
      setProblem(detail || ERROR_TEXT.oops);
      setBusy(false);
    }
  };
  return (
    <div className="flex flex-col gap-3">
      {problem && (
        <p role="alert" className="alert alert-error text-sm" data-accept-problem>
          {problem}
        </p>
      )}
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void accept()}>
        {busy && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
        {busy ? T.accepting : T.accept}
      </button>
    </div>
  );
}

function JoinedView({ org }: { org: Joined }) {
  return (
    <div className="flex flex-col gap-3" data-invitation-accepted>
      <p role="status" className="alert alert-success">
        {T.accepted}
      </p>
      <p className="text-sm">{T.acceptedBody}</p>
      {/* One above the other: the first names the organisation, up to 60 characters. */}
      <div className="grid gap-2">
        <button
          type="button"
          className="btn btn-primary h-auto min-h-10 py-2 wrap-anywhere"
          onClick={() => {
            chooseOrganization(org.id);
            navigate("/profile");
          }}
        >
          {T.switchTo(org.name)}
        </button>
        <a href="/" className="btn btn-outline">
          {T.stay}
        </a>
      </div>
    </div>
  );
}

export default function InvitationPage() {
  const session = useSession();
  const [loaded, setLoaded] = useState<Loaded>({ status: "loading" });
  const [joined, setJoined] = useState<Joined | null>(null);
  const lead = useRef<HTMLParagraphElement>(null);
  // Accept is gone once joined: the reader goes on from the new lead, not from the page's start.
  useEffect(() => {
    if (joined) lead.current?.focus();
  }, [joined]);

  useEffect(() => {
    const token = tokenOfPage();
    if (!token) {
      setLoaded({ status: "invalid" });
      return;
    }
    loadInvitation(token).then(
      (invitation) => setLoaded({ status: "ready", invitation }),
      (error: unknown) => setLoaded({ status: asApiError(error).status === 404 ? "invalid" : "failed" }),
    );
  }, []);

  if (loaded.status === "loading" || (loaded.status === "ready" && session.status !== "ready")) {
    return <LoadingState message={T.loading} />;
  }
  if (loaded.status !== "ready") {
    return (
      <p role="alert" className="alert alert-error" data-invitation-invalid>
        {loaded.status === "invalid" ? T.invalid : ERROR_TEXT.loadFailed}
      </p>
    );
  }
  const { invitation } = loaded;
  return (
    <div className="flex flex-col gap-5" data-invitation>
      {/* Joined, the lead says so: "You are invited" above "You joined" read as not done. */}
      <p ref={lead} tabIndex={-1} className="text-lg font-semibold outline-none" data-invitation-org>
        {joined ? T.acceptedTitle(joined.name) : T.lead(invitation.organization_name)}
      </p>
      <Facts invitation={invitation} />
      {joined ? (
        <JoinedView org={joined} />
      ) : session.user ? (
        <AcceptButton onJoined={setJoined} />
      ) : (
        <SignInFirst />
      )}
    </div>
  );
}
