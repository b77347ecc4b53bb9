// Re-authentication for sensitive actions (ACCOUNT-SECURITY.md): when the API answers 403
// `reauth_required`, the page asks for the password in a dialog (ReauthDialog reads $reauth),
// trades it for a fresh token at POST /v1/reauth, and retries the action by itself once.
import { atom } from "nanostores";
import { ApiError, apiRequest, asApiError } from "../lib/api-client.ts";
import { replaceToken } from "./auth.ts";

/** Whether the "Confirm your password" dialog is open. */
export const $reauth = atom<{ open: boolean }>({ open: false });

/** Thrown by withReauth when the visitor closes the dialog instead of confirming. */
export class ReauthCancelled extends Error {
  constructor() {
    super("Re-authentication cancelled");
    this.name = "ReauthCancelled";
  }
}

let waiting: { resolve: () => void; reject: (error: Error) => void } | null = null;

function askForPassword(): Promise<void> {
  // A second action asking while the dialog is open takes it over; the first ends as cancelled.
  waiting?.reject(new ReauthCancelled());
  return new Promise<void>((resolve, reject) => {
    waiting = { resolve, reject };
    $reauth.set({ open: true });
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
    await askForPassword();
    return call();
  }
}

/**
 * The dialog's confirm: POST /v1/reauth with the password. On success the new token replaces the
 * stored one and the waiting action goes on; on failure the ApiError is thrown for the dialog to
 * show (400 "Incorrect password", 429) and the dialog stays open.
 */
export async function confirmPassword(password: string): Promise<void> {
  const { access_token } = await apiRequest("/v1/reauth", "tokenResponseSchema", {
    method: "POST",
    body: { password },
    auth: true,
  }).catch((error: unknown) => {
    throw asApiError(error);
  });
  replaceToken(access_token);
  $reauth.set({ open: false });
  const pending = waiting;
  waiting = null;
  pending?.resolve();
}

/** The dialog closed without a password: the waiting action ends with ReauthCancelled. */
export function cancelReauth(): void {
  $reauth.set({ open: false });
  const pending = waiting;
  waiting = null;
  pending?.reject(new ReauthCancelled());
}
