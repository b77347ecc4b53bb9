// What /profile/security shows and changes (ACCOUNT-SECURITY.md): the two-factor state, the
// account's recent security events, and the actions: set up or turn off two-factor sign-in, new
// recovery codes, change the password, sign out everywhere. The sensitive ones confirm the
// password first when it is older than 10 minutes (stores/reauth.ts). Every action that answers a
// new token stores it, so the page goes on working with the session it has.
import { atom } from "nanostores";
import type { EmailState } from "../../contract/email-state.ts";
import type { SecurityEvents } from "../../contract/security-events.ts";
import type { TotpSetup } from "../../contract/two-factor.ts";
import { apiRequest, saveBlob } from "../lib/api-client.ts";
import { forgetSession, replaceToken } from "./auth.ts";
import { withReauth } from "./reauth.ts";

type Loaded<T> = { status: "loading" } | { status: "failed" } | ({ status: "ready" } & T);

export const $twoFactor = atom<Loaded<{ on: boolean; recoveryCodesLeft: number }>>({ status: "loading" });
export const $securityEvents = atom<
  Loaded<{ events: SecurityEvents["data"]; wrongPasswordsNotListed: number }>
>({ status: "loading" });

/**
 * GET /v1/users/me/email: the change waiting for its link (the e-mail section) and the review after
 * a way back (stores/revert-review.ts). Undefined until read; a failed read leaves it: both are
 * extras beside the page's own sections, which say when the account cannot be read.
 */
export const $emailState = atom<EmailState | undefined>(undefined);
let emailStateReads = 0;

export async function loadEmailState(): Promise<void> {
  // Only the latest read counts: one that started before a change must not answer after it.
  const read = ++emailStateReads;
  try {
    const answer = await apiRequest("/v1/users/me/email", "emailStateSchema", { auth: true });
    if (read === emailStateReads) $emailState.set(answer);
  } catch {
    // Nothing more to show (see above).
  }
}

export async function loadTwoFactor(): Promise<void> {
  try {
    const answer = await apiRequest("/v1/users/me/mfa", "mfaStatusSchema", { auth: true });
    $twoFactor.set({ status: "ready", on: answer.totp, recoveryCodesLeft: answer.recovery_codes_left });
  } catch {
    $twoFactor.set({ status: "failed" });
  }
}

export async function loadSecurityEvents(): Promise<void> {
  try {
    const answer = await apiRequest("/v1/users/me/security-events", "securityEventsSchema", { auth: true });
    $securityEvents.set({
      status: "ready",
      events: answer.data,
      wrongPasswordsNotListed: answer.wrong_passwords_not_listed,
    });
  } catch {
    $securityEvents.set({ status: "failed" });
  }
}

/** Each change is a new security event: the list follows it. */
function afterChange() {
  void loadTwoFactor();
  void loadSecurityEvents();
}

/** A new secret to scan; two-factor is not on until confirmTotpSetup. */
export function startTotpSetup(): Promise<TotpSetup> {
  return withReauth(() =>
    apiRequest("/v1/users/me/mfa/totp", "totpSetupSchema", { method: "POST", auth: true }),
  );
}

/** Turns two-factor on with a code from the app; answers the recovery codes (shown once). */
export async function confirmTotpSetup(code: string): Promise<string[]> {
  const answer = await withReauth(() =>
    apiRequest("/v1/users/me/mfa/totp/confirm", "totpConfirmedSchema", {
      method: "POST",
      body: { code },
      auth: true,
    }),
  );
  replaceToken(answer.access_token);
  afterChange();
  return answer.recovery_codes;
}

export async function turnOffTwoFactor(code: string): Promise<void> {
  await withReauth(() =>
    apiRequest("/v1/users/me/mfa/totp", "detailSchema", { method: "DELETE", body: { code }, auth: true }),
  );
  afterChange();
}

export async function renewRecoveryCodes(code: string): Promise<string[]> {
  const answer = await withReauth(() =>
    apiRequest("/v1/users/me/mfa/recovery-codes", "recoveryCodesSchema", {
      method: "POST",
      body: { code },
      auth: true,
    }),
  );
  afterChange();
  return answer.recovery_codes;
}

/**
 * Changes the password with the current one; this browser keeps its session with a new token. On
 * an account with two-factor sign-in on, an older session confirms with the code first (decision
 * 023): the current password alone is not enough there.
 */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  const answer = await withReauth(() =>
    apiRequest("/v1/users/me/password", "tokenResponseSchema", {
      method: "POST",
      body: { current_password: currentPassword, new_password: newPassword },
      auth: true,
    }),
  );
  replaceToken(answer.access_token);
  void loadSecurityEvents();
}

/** Ends every session of the account on the server, then this browser's. The caller navigates. */
export async function signOutEverywhere(): Promise<void> {
  await apiRequest("/v1/logout/all", "detailSchema", { method: "POST", auth: true });
  forgetSession();
}

/**
 * The account's data as the API exports it, saved as a JSON file. Read whole and saved from memory:
 * a blob download could not tell a "confirm your password" answer from the file.
 */
export async function downloadAccountData(): Promise<void> {
  const data = await withReauth(() => apiRequest("/v1/users/me/export", "anyAnswerSchema", { auth: true }));
  const file = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  saveBlob(file, `account-${new Date().toISOString().slice(0, 10)}.json`);
}

/** Deletes the account (its username typed to confirm), then signs this browser out. The caller navigates. */
export async function deleteAccount(username: string): Promise<void> {
  await withReauth(() =>
    apiRequest("/v1/users/me", "detailSchema", { method: "DELETE", body: { confirm: username }, auth: true }),
  );
  forgetSession();
}

/** Mails a link to `email`; the address changes when it is followed. Answers the server's words. */
export async function requestEmailChange(email: string): Promise<string> {
  const { detail } = await withReauth(() =>
    apiRequest("/v1/users/me/email", "detailSchema", { method: "POST", body: { email }, auth: true }),
  );
  void loadSecurityEvents();
  await loadEmailState();
  return detail;
}

/**
 * Cancels the change waiting for its link (its link stops working). Answers the server's words; the
 * section follows the server's state either way (a refusal means it had ended already).
 */
export async function cancelEmailChange(): Promise<string> {
  try {
    const { detail } = await apiRequest("/v1/users/me/email/pending", "detailSchema", {
      method: "DELETE",
      auth: true,
    });
    void loadSecurityEvents();
    return detail;
  } finally {
    await loadEmailState();
  }
}
