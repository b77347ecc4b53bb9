// /profile/security (ACCOUNT-SECURITY.md), guarded like /profile: two-factor sign-in, the password,
// sign out everywhere, the recent security events, and the account's data (export, deletion). The password confirmation dialog serves
// every sensitive action of the page.

import { useEffect } from "react";
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { initSession } from "../../stores/auth.ts";
import { loadEmailState } from "../../stores/security.ts";
import { ReauthDialog } from "../auth/ReauthDialog.tsx";
import { RouteGuard } from "../auth/RouteGuard.tsx";
import { DataSection } from "./DataSection.tsx";
import { EmailSection } from "./EmailSection.tsx";
import { PasskeysSection } from "./PasskeysSection.tsx";
import { PasswordSection } from "./PasswordSection.tsx";
import { RevertReview } from "./RevertReview.tsx";
import { SecurityEvents } from "./SecurityEvents.tsx";
import { SessionsSection } from "./SessionsSection.tsx";
import { TwoFactorSection } from "./TwoFactorSection.tsx";

// The settings are this page's content: ask for the session as soon as the module runs (see Profile).
if (typeof document !== "undefined") void initSession();

function Settings({ username, email }: { username: string; email: string }) {
  // The e-mail state serves two sections (the review after a way back, the pending change): one read.
  useEffect(() => {
    void loadEmailState();
  }, []);
  return (
    <div className="flex flex-col gap-6">
      <RevertReview />
      <TwoFactorSection />
      <PasskeysSection />
      <EmailSection email={email} />
      <PasswordSection />
      <SessionsSection />
      <SecurityEvents />
      <DataSection username={username} />
      <ReauthDialog />
    </div>
  );
}

export default function SecuritySettings() {
  return (
    <RouteGuard loadingMessage={SECURITY_TEXT.loading}>
      {(user) => <Settings username={user.username} email={user.email} />}
    </RouteGuard>
  );
}
