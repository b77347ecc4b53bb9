// The account calls that are not about the session (register, e-mail and password flows), as
// actions islands call; they throw ApiError, which the islands map to the spec's messages.
import type { EmailRequestInput, PasswordResetInput, RegisterInput } from "../../contract/account.ts";
import { apiRequest } from "../lib/api-client.ts";

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

/** Follows an e-mail change link (the new address's, or the old one's way back); the server's words. */
export async function confirmEmailChange(token: string): Promise<string> {
  const { detail } = await apiRequest("/v1/user/confirm-email", "detailSchema", {
    method: "POST",
    body: { token },
  });
  return detail;
}
