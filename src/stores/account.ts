// The account calls that are not about the session (register, e-mail and password flows), as
// actions islands call; they throw ApiError, which the islands map to the spec's messages.
import type { EmailRequestInput, PasswordResetInput, RegisterInput } from "../../contract/account.ts";
import { apiRequest, asApiError } from "../lib/api-client.ts";

export function registerAccount(input: RegisterInput) {
  return apiRequest("/v1/register", "registeredUserSchema", { method: "POST", body: { ...input } });
}

export function requestPasswordReset(input: EmailRequestInput) {
  return apiRequest("/v1/user/password-reset-request", "anyAnswerSchema", {
    method: "POST",
    body: { ...input },
  });
}

export function resendVerification(input: EmailRequestInput) {
  return apiRequest("/v1/user/resend-email-verification", "anyAnswerSchema", {
    method: "POST",
    body: { ...input },
  });
}

export function checkResetToken(token: string) {
  return apiRequest(`/v1/user/password-reset-check/${encodeURIComponent(token)}`, "resetCheckResponseSchema");
}

export function resetPassword(input: PasswordResetInput) {
  return apiRequest("/v1/user/password-reset", "detailSchema", { method: "POST", body: { ...input } });
}

export function verifyEmail(token: string) {
  return apiRequest("/v1/user/verify-email", "detailSchema", { method: "POST", body: { token } });
}

/**
 * Follows an e-mail change link; the server's words. The old address's way back acts only with
 * `revert` (the owner's click): without it the server answers 409 `revert_required` and does nothing.
 */
export async function confirmEmailChange(token: string, revert = false): Promise<string> {
  const { detail } = await apiRequest("/v1/user/confirm-email", "detailSchema", {
    method: "POST",
    body: revert ? { token, revert: true } : { token },
  });
  return detail;
}

/** Whether a failed confirmEmailChange was a way back that waits for the owner's word. */
export function isRevertRequired(error: unknown): boolean {
  const answer = asApiError(error);
  return (
    answer.status === 409 &&
    (answer.body as { revert_required?: unknown } | undefined)?.revert_required === true
  );
}
