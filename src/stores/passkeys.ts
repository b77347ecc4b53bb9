// The account's passkeys for /profile/security: the list, adding one (the browser's dialog through
// @simplewebauthn/browser, loaded on use) and removing one. Both changes confirm the password first
// when it is older than 10 minutes (stores/reauth.ts).
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { atom } from "nanostores";
import type { Passkey } from "../../contract/passkeys.ts";
import { apiRequest } from "../lib/api-client.ts";
import { withReauth } from "./reauth.ts";
import { loadSecurityEvents } from "./security.ts";

export const $passkeys = atom<
  { status: "loading" } | { status: "failed" } | { status: "ready"; passkeys: readonly Passkey[] }
>({ status: "loading" });

export async function loadPasskeys(): Promise<void> {
  try {
    const answer = await apiRequest("/v1/users/me/passkeys", "passkeyListSchema", { auth: true });
    $passkeys.set({ status: "ready", passkeys: answer.data });
  } catch {
    $passkeys.set({ status: "failed" });
  }
}

/**
 * Adds a passkey named `name`: options from the server, the browser's dialog, the answer back.
 * Throws ApiError when the server refuses, the browser's error when the dialog is closed.
 */
export async function addPasskey(name: string): Promise<void> {
  const options = await withReauth(() =>
    apiRequest("/v1/users/me/passkeys/options", "webauthnOptionsSchema", { method: "POST", auth: true }),
  );
  const { startRegistration } = await import("@simplewebauthn/browser");
  const answer = await startRegistration({
    optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  await apiRequest("/v1/users/me/passkeys", "passkeySchema", {
    method: "POST",
    body: { name, response: answer },
    auth: true,
  });
  void loadPasskeys();
  void loadSecurityEvents();
}

export async function removePasskey(id: string): Promise<void> {
  await withReauth(() =>
    apiRequest(`/v1/users/me/passkeys/${encodeURIComponent(id)}`, "anyAnswerSchema", {
      method: "DELETE",
      auth: true,
    }),
  );
  void loadPasskeys();
  void loadSecurityEvents();
}
