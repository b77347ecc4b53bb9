// Renders its content only for a user whose role is allowed; anyone else goes to / and sees
// nothing. Until the session is known it shows the page's loading state; when a session is stored
// but the account could not be loaded (API down, no answer in time) it says so and stays. A visitor
// who arrived signed out (a receipt mail's invoice link, a bookmark) has the page kept as
// `originalPath`, so the login that follows comes back to it.
import type { ReactNode } from "react";
import { useEffect, useRef } from "react";
import type { User } from "../../../contract/account.ts";
import { saveOriginalPath } from "../../lib/auth-storage.ts";
import { redirect } from "../../lib/navigation.ts";
import { DEFAULT_ALLOWED_ROLES, isRoleAllowed } from "../../lib/route-guard.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { LoadingState } from "./LoadingState.tsx";
import { useSession } from "./use-session.ts";

interface Props {
  allowedRoles?: readonly string[];
  loadingMessage: string;
  children: (user: User) => ReactNode;
}

export function RouteGuard({ allowedRoles = DEFAULT_ALLOWED_ROLES, loadingMessage, children }: Props) {
  const { status, user, loadFailed } = useSession();
  const allowed = isRoleAllowed(user?.role, allowedRoles);
  // Signed in on this page once: a sign-out here goes to / without sending the next login back.
  const hadUser = useRef(false);
  if (user) hadUser.current = true;

  useEffect(() => {
    if (status !== "ready" || allowed || loadFailed) return;
    if (!user && !hadUser.current) {
      // The fragment too: the password-changed mail's "#revoke-all" opens its confirmation after login.
      const { pathname, search, hash } = window.location;
      saveOriginalPath(pathname + search + hash);
    }
    redirect("/");
  }, [status, allowed, loadFailed, user]);

  if (status !== "ready") {
    return (
      <div className="card border border-base-300 bg-base-100 shadow-sm">
        <div className="card-body">
          <LoadingState message={loadingMessage} />
        </div>
      </div>
    );
  }
  if (loadFailed) {
    return (
      <p role="alert" className="alert alert-error" data-account-load-failed>
        {ERROR_TEXT.accountLoadFailed}
      </p>
    );
  }
  if (!allowed || !user) return null;
  return children(user);
}
