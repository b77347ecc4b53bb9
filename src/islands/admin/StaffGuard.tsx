// The console's guard: staff roles only (RouteGuard), and only with a session from a sign-in with
// two factors (ACCOUNT-SECURITY.md). A staff member without one is told how to get it instead of
// seeing the console's calls fail.
import { useStore } from "@nanostores/react";
import type { ReactNode } from "react";
import type { User } from "../../../contract/account.ts";
import { ADMIN_PAGE_TEXT } from "../../lib/admin-text.ts";
import { tokenProvesTwoFactors } from "../../lib/token-expiry.ts";
import { $auth } from "../../stores/auth.ts";
import { RouteGuard } from "../auth/RouteGuard.tsx";

interface Props {
  allowedRoles: readonly string[];
  loadingMessage: string;
  children: (viewer: User) => ReactNode;
}

function TwoFactorRequired() {
  return (
    <div role="alert" className="alert alert-warning flex flex-col items-start gap-2" data-staff-mfa-required>
      <p className="font-semibold">{ADMIN_PAGE_TEXT.staffMfaRequired}</p>
      <p className="text-sm">{ADMIN_PAGE_TEXT.twoFactorRequired}</p>
      <a href="/profile/security" className="btn btn-sm">
        {ADMIN_PAGE_TEXT.twoFactorLink}
      </a>
    </div>
  );
}

export function StaffGuard({ allowedRoles, loadingMessage, children }: Props) {
  const { token } = useStore($auth);
  return (
    <RouteGuard allowedRoles={allowedRoles} loadingMessage={loadingMessage}>
      {(viewer) => (tokenProvesTwoFactors(token) ? children(viewer) : <TwoFactorRequired />)}
    </RouteGuard>
  );
}
