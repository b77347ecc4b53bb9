// The signed-in user's API keys for /profile/api-keys: the list (with its loading and failure
// states) and the actions that change it. Each action refreshes the list from the server, so what
// the page shows is always what the API says (including what each key spent this month).
import { atom } from "nanostores";
import type { ApiKey, CreateApiKeyRequest, CreatedApiKey } from "../../contract/api-keys.ts";
import { apiRequest, asApiError } from "../lib/api-client.ts";
import { serverClockOffset } from "../lib/server-clock.ts";
import { withReauth } from "./reauth.ts";

export type ApiKeysState = {
  status: "loading" | "ready" | "failed";
  keys: readonly ApiKey[];
  /** How far the server's clock is ahead of this browser's: expiry is judged by the server's. */
  clockOffsetMs?: number;
};

export const $apiKeys = atom<ApiKeysState>({ status: "loading", keys: [] });

/** Loads (or reloads) the list; a failure keeps the keys already shown and says so. */
export async function loadApiKeys(): Promise<void> {
  const before = $apiKeys.get();
  $apiKeys.set({ ...before, status: "loading" });
  try {
    const answer = await apiRequest("/v1/api-keys", "apiKeyListSchema", { auth: true });
    $apiKeys.set({ status: "ready", keys: answer.data, clockOffsetMs: serverClockOffset(answer.as_of) });
  } catch {
    $apiKeys.set({ ...before, status: "failed" });
  }
}

/**
 * Creates a key and returns it with the key itself (shown once). Creating a key is a sensitive
 * action: a session whose password is older than 10 minutes confirms it first (stores/reauth.ts).
 * Throws ApiError on failure, ReauthCancelled when the visitor does not confirm.
 */
export async function createApiKey(request: CreateApiKeyRequest): Promise<CreatedApiKey> {
  const created = await withReauth(() =>
    apiRequest("/v1/api-keys", "createdApiKeySchema", {
      method: "POST",
      body: { ...request },
      auth: true,
    }),
  );
  void loadApiKeys();
  return created;
}

/**
 * Revokes every key the account made, in every organisation; how many were revoked. Throws ApiError
 * on failure. `reloadList`: whether the page shows the chosen organisation's list to refresh (a
 * billing member's shows none, and the API would refuse it the list).
 */
export async function revokeAllApiKeys(reloadList = true): Promise<number> {
  const { revoked } = await apiRequest("/v1/api-keys/revoke-all", "revokedKeysSchema", {
    method: "POST",
    auth: true,
  });
  if (reloadList) {
    $apiKeys.set({ ...$apiKeys.get(), keys: [] });
    void loadApiKeys();
  }
  return revoked;
}

/**
 * Revokes a key; throws ApiError on failure (a key already gone counts as revoked). `organization`:
 * the key's, when it may not be the chosen one (the security page's review lists every organisation's).
 */
export async function revokeApiKey(id: string, organization?: string): Promise<void> {
  try {
    await apiRequest(`/v1/api-keys/${encodeURIComponent(id)}`, "anyAnswerSchema", {
      method: "DELETE",
      auth: true,
      ...(organization === undefined ? {} : { organization }),
    });
  } catch (error) {
    if (asApiError(error).status !== 404) throw error;
  }
  $apiKeys.set({ ...$apiKeys.get(), keys: $apiKeys.get().keys.filter((k) => k.id !== id) });
  void loadApiKeys();
}
