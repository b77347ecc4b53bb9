// Re-authentication for sensitive actions (ACCOUNT-SECURITY.md): when the API answers 403
// `reauth_required`, the page asks for the password (or a passkey) in a dialog (ReauthDialog reads
// $reauth), trades it for a fresh token at POST /v1/reauth, and retries the action by itself once.
// On an account with two-factor sign-in on, the password goes with a code (decision 023).
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { atom } from "nanostores";
import { ApiError, apiRequest, asApiError } from "../lib/api-client.ts";
import { replaceToken } from "./auth.ts";

/**
 * Whether the "Confirm your password" dialog is open, whether it may offer a passkey instead (the
 * 403 lists `webauthn` among its methods when the account has one), whether it asks for a code
 * beside the password (the 403's `code_required`), and whether it asks for the password at all (a
 * staff account whose only second factor is a passkey confirms with the passkey alone: decision 046).
 */
export interface ReauthState {
  open: boolean;
  passkey: boolean;
  code: boolean;
  password: boolean;
}
const CLOSED: ReauthState = { open: false, passkey: false, code: false, password: true };
export const $reauth = atom<ReauthState>(CLOSED);

/** Thrown by withReauth when the visitor closes the dialog instead of confirming. */
export class ReauthCancelled extends Error {
  constructor() {
    super("Re-authentication cancelled");
    this.name = "ReauthCancelled";
  }
}

let waiting: { resolve: () => void; reject: (error: Error) => void } | null = null;

function askForPassword(ways: Pick<ReauthState, "passkey" | "code" | "password">): Promise<void> {
  // A second action asking while the dialog is open takes it over; the first ends as cancelled.
  waiting?.reject(new ReauthCancelled());
  return new Promise<void>((resolve, reject) => {
    waiting = { resolve, reject };
    $reauth.set({ open: true, ...ways });
  });
}

/**
 * Runs `call`; when the API asks for the password, asks for it and runs `call` once more with the
 * new token (so `call` must read the stored token, `auth: true`). Throws ReauthCancelled when the
 * visitor cancels, and whatever `call` throws otherwise.
 */
export async function withReauth<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError && error.reauthRequired)) throw error;
    await askForPassword({
      passkey: error.methods.includes("webauthn"),
      code: error.codeRequired,
      password: error.methods.includes("password"),
    });
    return call();
  }
}

/** POST /v1/reauth; on success the new token replaces the stored one and the waiting action goes on. */
async function reauthenticate(
  body: { password: string; code?: string } | { webauthn: unknown },
): Promise<void> {
  const { access_token } = await apiRequest("/v1/reauth", "tokenResponseSchema", {
    method: "POST",
    body,
    auth: true,
  }).catch((error: unknown) => {
    throw asApiError(error);
  });
  replaceToken(access_token);
  $reauth.set(CLOSED);
  const pending = waiting;
  waiting = null;
  pending?.resolve();
}

/**
 * The dialog's confirm with the password, and the code when the account has two-factor sign-in
 * on. On failure the ApiError is thrown for the dialog to show (400 "Incorrect password" or
 * "Incorrect code", 429) and the dialog stays open.
 */
export function confirmPassword(password: string, code?: string): Promise<void> {
  return reauthenticate(code === undefined ? { password } : { password, code });
}

/**
 * The dialog's "Use a passkey instead": the account's passkeys in the browser's dialog
 * (@simplewebauthn/browser, loaded on use), the answer to POST /v1/reauth. Throws the browser's
 * error when the visitor closes its dialog, an ApiError when the server refuses.
 */
export async function confirmWithPasskey(): Promise<void> {
  const options = await apiRequest("/v1/reauth/passkey-options", "webauthnOptionsSchema", {
    method: "POST",
    auth: true,
  });
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const answer = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  await reauthenticate({ webauthn: answer });
}

/** The dialog closed without a password: the waiting action ends with ReauthCancelled. */
export function cancelReauth(): void {
  $reauth.set(CLOSED);
  const pending = waiting;
  waiting = null;
  pending?.reject(new ReauthCancelled());
}
