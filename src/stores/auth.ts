// $auth (token and flag) and $user (the current user), shared by every island of a page, and the
// actions that change them. Islands read these with useStore and call the actions; they never call
// fetch. Every page is its own document, so each page load runs `initSession` once.
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { atom } from "nanostores";
import type { User } from "../../contract/account.ts";
import { ApiError, apiRequest, endSignedInCalls, signedOut } from "../lib/api-client.ts";
import {
  choiceChangedElsewhere,
  chooseOrganization,
  chosenOrganization,
  clearSession,
  keepSignedOutReason,
  readStoredToken,
  rereadOrganizationForTests,
  storeSession,
  takeOriginalPath,
  takeSignedOutReason,
} from "../lib/auth-storage.ts";
import { isAccountDisabled } from "../lib/error-messages.ts";
import { redirect } from "../lib/navigation.ts";
import { USER_FETCH_TIMEOUT_MS } from "../lib/retry-policy.ts";
import { postLoginPath } from "../lib/safe-redirect.ts";
import { isTokenExpired, tokenSubject } from "../lib/token-expiry.ts";
import { ERROR_TEXT } from "../lib/ui-text.ts";
import { notify } from "./toast.ts";

export interface AuthState {
  token: string | null;
  isAuthenticated: boolean;
}

/** `unknown` until the page knows (server render and first client render), then `ready`. */
export interface UserState {
  status: "unknown" | "ready";
  user: User | null;
  /**
   * Set when a token is held but the user could not be loaded (no answer in time, a server error,
   * an answer that is not a user): the visitor is not known to be logged out, so a guarded page
   * says so instead of sending them away.
   */
  loadFailed?: true;
}

const LOGGED_OUT: AuthState = { token: null, isAuthenticated: false };
const USER_UNKNOWN: UserState = { status: "unknown", user: null };

export const $auth = atom<AuthState>(LOGGED_OUT);
export const $user = atom<UserState>(USER_UNKNOWN);

let session: Promise<void> | null = null;

function setLoggedOut(): void {
  clearSession();
  $auth.set(LOGGED_OUT);
  $user.set({ status: "ready", user: null });
}

/** `GET /v1/users/me`, never retried (spec section 7), given up after USER_FETCH_TIMEOUT_MS. */
function fetchUser(token: string): Promise<User> {
  return apiRequest("/v1/users/me", "userSchema", { auth: token, timeoutMs: USER_FETCH_TIMEOUT_MS });
}

/**
 * The stored organisation choice against the organisation `GET /v1/users/me` answered for: the
 * server answers the personal one to a caller who is no longer a member of the chosen one. Then
 * the choice goes, said in a toast unless the answer is to a new sign-in (whose choice may be an
 * old session's): that the organisation was deleted, when the answer says so, or else that the
 * user is no longer a member. The message loads with the toast: the words of organisations stay
 * off every page.
 */
function settleOrganization(user: User, newSignIn: boolean): void {
  const chosen = chosenOrganization();
  const answered = user.organization?.id;
  if (!chosen || !answered || answered === chosen) return;
  chooseOrganization(null);
  if (newSignIn) return;
  // A message whose chunk did not load is left out, not turned into an unhandled rejection: the
  // portal has already moved to the personal organisation.
  import("../../contract/org-messages.ts").then(
    (messages) => notify("info", messages.choiceLost(user)),
    () => {},
  );
}

async function loadUser(token: string, newSignIn = false): Promise<void> {
  try {
    const user = await fetchUser(token);
    settleOrganization(user, newSignIn);
    $user.set({ status: "ready", user });
  } catch (error) {
    // A token the server no longer accepts (expired early, password reset) means logged out.
    if (error instanceof ApiError && error.status === 401) setLoggedOut();
    else if (error instanceof ApiError && isAccountDisabled(error)) {
      // Staff disabled the account: its token is refused everywhere. Sign out, and say why on the
      // home page (a guarded page would send the visitor there anyway, losing a toast shown here).
      setLoggedOut();
      if (window.location.pathname === "/") notify("error", String(error.detail));
      else {
        keepSignedOutReason(String(error.detail));
        redirect("/");
      }
    } else $user.set({ status: "ready", user: null, loadFailed: true });
  }
}

/**
 * Reads the stored token once per page load: a missing, undecodable or expired token clears the
 * session (the visitor stays on the page they opened); a valid one loads the user, one request
 * however many islands ask. When that request fails for another reason than a 401, the page shows
 * an error toast (otherwise the top bar would just look logged out, with no reason given).
 */
export function initSession(): Promise<void> {
  if (session) return session;
  // Another tab chose another organisation (or signed out): this page's calls and figures are the
  // old one's, so it loads again (ORGANISATIONS.md "Pages").
  if (typeof window !== "undefined") {
    // The choice this page acts on, read now: a change that arrives before any island asked for it
    // must still differ from it (choiceChangedElsewhere), not from what storage holds by then.
    chosenOrganization();
    window.addEventListener("storage", (event) => {
      if (choiceChangedElsewhere(event)) window.location.reload();
    });
  }
  const signedOutBecause = takeSignedOutReason();
  if (signedOutBecause) notify("error", signedOutBecause);
  const token = readStoredToken();
  if (isTokenExpired(token) || !token) {
    setLoggedOut();
    session = Promise.resolve();
  } else {
    $auth.set({ token, isAuthenticated: true });
    session = loadUser(token).then(() => {
      if ($user.get().loadFailed) notify("error", ERROR_TEXT.accountLoadFailed);
    });
  }
  return session;
}

/** Fetches the user again (after a payment, a plan change or a cancellation). */
export async function refreshUser(): Promise<void> {
  await initSession();
  const { token } = $auth.get();
  if (token) await loadUser(token);
}

const sameAccountState = (a: User | null, b: User | null) =>
  JSON.stringify([a?.credit_balance, a?.subscription]) ===
  JSON.stringify([b?.credit_balance, b?.subscription]);

/**
 * Refreshes the user, then, up to `polls` more times 1.5 s apart, again until the plan or balance
 * changes: after a payment the provider's webhook may reach the server a moment after the browser.
 */
export async function refreshUserUntilChanged(polls: number, waitMs = 1500): Promise<void> {
  await initSession();
  const before = $user.get().user;
  await refreshUser();
  for (let i = 0; i < polls && $auth.get().token && sameAccountState(before, $user.get().user); i++) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    await refreshUser();
  }
}

/**
 * `POST /v1/token` (form-urlencoded), then stores the token and flag and refetches the user.
 * Returns where to go next: the saved `originalPath` when it is a path of this site, else "/".
 */
export async function logIn(username: string, password: string): Promise<string> {
  const body = new URLSearchParams({ username, password });
  const { access_token } = await apiRequest("/v1/token", "tokenResponseSchema", { method: "POST", body });
  return startSession(access_token);
}

/**
 * `POST /v1/token/mfa`: the second step when logIn threw an ApiError with `mfaToken` (the account
 * has two-factor sign-in on). `code` is from the authenticator app, or a recovery code.
 */
export async function logInWithCode(mfaToken: string, code: string): Promise<string> {
  const { access_token } = await apiRequest("/v1/token/mfa", "tokenResponseSchema", {
    method: "POST",
    body: { mfa_token: mfaToken, code },
  });
  return startSession(access_token);
}

/**
 * Signs in with a passkey: the browser's passkey dialog (@simplewebauthn/browser, loaded on use),
 * then `POST /v1/token/passkey`, or, with `mfaToken`, the passkey as the second factor of a sign-in
 * whose password was right. Throws the browser's error when the visitor cancels the dialog.
 */
export async function logInWithPasskey(mfaToken?: string): Promise<string> {
  const options = await apiRequest("/v1/passkeys/options", "webauthnOptionsSchema", {
    method: "POST",
    body: mfaToken ? { mfa_token: mfaToken } : {},
  });
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const answer = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  const { access_token } = mfaToken
    ? await apiRequest("/v1/token/mfa", "tokenResponseSchema", {
        method: "POST",
        body: { mfa_token: mfaToken, webauthn: answer },
      })
    : await apiRequest("/v1/token/passkey", "tokenResponseSchema", {
        method: "POST",
        body: { response: answer },
      });
  return startSession(access_token);
}

async function startSession(accessToken: string): Promise<string> {
  // Signing in as another user forgets the organisation the last one chose.
  const previous = tokenSubject(readStoredToken());
  if (previous && previous !== tokenSubject(accessToken)) chooseOrganization(null);
  storeSession(accessToken);
  $auth.set({ token: accessToken, isAuthenticated: true });
  await loadUser(accessToken, true);
  return postLoginPath(takeOriginalPath());
}

/** Keeps a new token for the same session (re-authentication answers one); the user is unchanged. */
export function replaceToken(token: string): void {
  storeSession(token);
  $auth.set({ token, isAuthenticated: true });
}

/** How long Sign Out waits for the server before it signs out of the browser anyway. */
const SIGN_OUT_TIMEOUT_MS = 3000;

/**
 * `POST /v1/logout` with the held token, so that it stops working on the server too (a copy of it
 * must not outlive the session), then clears the stored token and flag and the user, whatever the
 * answer: no answer, an expired token or a server error still sign the browser out. The caller
 * navigates to /.
 */
export async function signOut(): Promise<void> {
  const { token } = $auth.get();
  if (token) {
    await endSignedInCalls(SIGN_OUT_TIMEOUT_MS);
    await apiRequest("/v1/logout", "detailSchema", {
      method: "POST",
      auth: token,
      timeoutMs: SIGN_OUT_TIMEOUT_MS,
    }).catch(() => undefined);
  }
  chooseOrganization(null);
  setLoggedOut();
  signedOut();
}

/**
 * Signs this browser out without telling the server: for when the server has already ended the
 * session (sign out everywhere), where POST /v1/logout could only answer 401.
 */
export function forgetSession(): void {
  chooseOrganization(null);
  setLoggedOut();
}

/** Forgets the page's session state; tests only. */
export function resetAuthForTests(): void {
  session = null;
  rereadOrganizationForTests();
  $auth.set(LOGGED_OUT);
  $user.set(USER_UNKNOWN);
}
