// /verify-email/{token}: verifies on load. Pending, then 'Email verified successfully!' with a
// Login link, or 'Token is invalid or expired.' with a link to /resend-email-verification.
import { useEffect, useState } from "react";
import { routeParam } from "../../lib/route-param.ts";
import { VERIFY_EMAIL_TEXT } from "../../lib/verify-email-text.ts";
import { verifyEmail } from "../../stores/account.ts";
import { LoadingState } from "../auth/LoadingState.tsx";
import { InvalidToken } from "./InvalidToken.tsx";

type Result = "pending" | "success" | "failed";

// A verification token is single use: never send it twice from one page, even if the effect runs twice.
let started: Promise<boolean> | null = null;

function verifyOnce(token: string): Promise<boolean> {
  started ??= verifyEmail(token).then(
    () => true,
    () => false,
  );
  return started;
}

export default function VerifyEmail() {
  const [result, setResult] = useState<Result>("pending");

  useEffect(() => {
    const token = routeParam(window.location.pathname, "/verify-email/");
    if (!token) {
      setResult("failed");
      return;
    }
    void verifyOnce(token).then((ok) => setResult(ok ? "success" : "failed"));
  }, []);

  if (result === "pending") return <LoadingState message={VERIFY_EMAIL_TEXT.pending} />;
  if (result === "failed") {
    return <InvalidToken linkHref="/resend-email-verification" linkText={VERIFY_EMAIL_TEXT.resendLink} />;
  }
  return (
    <div className="flex flex-col gap-4" data-verify-success>
      <p role="status" className="alert alert-success">
        {VERIFY_EMAIL_TEXT.success}
      </p>
      <a href="/login" className="btn btn-primary">
        {VERIFY_EMAIL_TEXT.loginLink}
      </a>
    </div>
  );
}
