// Renders its content only for a user whose role is allowed; anyone else goes to / and sees
// nothing. Until the session is known it shows the page's loading state.
import type { ReactNode } from "react";
import { useEffect } from "react";
import type { User } from "../../../contract/account.ts";
import { redirect } from "../../lib/navigation.ts";
import { DEFAULT_ALLOWED_ROLES, isRoleAllowed } from "../../lib/route-guard.ts";
import { LoadingState } from "./LoadingState.tsx";
import { useSession } from "./use-session.ts";

interface Props {
  allowedRoles?: readonly string[];
  loadingMessage: string;
  children: (user: User) => ReactNode;
}

export function RouteGuard({ allowedRoles = DEFAULT_ALLOWED_ROLES, loadingMessage, children }: Props) {
  const { status, user } = useSession();
  const allowed = isRoleAllowed(user?.role, allowedRoles);

  useEffect(() => {
    if (status === "ready" && !allowed) redirect("/");
  }, [status, allowed]);

  if (status !== "ready") {
    return (
      <div className="card border border-base-300 bg-base-100 shadow-sm">
        <div className="card-body">
          <LoadingState message={loadingMessage} />
        </div>
      </div>
    );
  }
  if (!allowed || !user) return null;
  return children(user);
}
