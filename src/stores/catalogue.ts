// The catalogue reads (subscription products and top-up packs) as @nanostores/query fetcher stores,
// which islands read with useStore. The spec's query behaviour (section 7): one request in flight per
// key, the answer reused for 5 minutes, failures retried 3 times with exponential backoff from 1 s
// to 30 s, never refetched on window focus or reconnect. (The user fetch is not one of these: it is
// never retried, see auth.ts.)
import { type FetcherStore, type FetcherValue, nanoquery, type OnErrorRetry } from "@nanostores/query";
import { atom } from "nanostores";
import { apiRequest } from "../lib/api-client.ts";
import { byPriceAscending } from "../lib/plan-details.ts";
import { CACHE_LIFETIME_MS, isRetryableStatus, MAX_RETRIES, retryDelayMs } from "../lib/retry-policy.ts";

/** Keys whose last failure will not be retried: only then does an island show the error. */
const givenUp = new Set<string>();

const statusOf = (error: unknown) => (error as { status?: number } | null)?.status;

/** nanoquery's retry hook with the spec's policy: `retryCount` is 1 after the first failure. */
const retryCatalogueRead: OnErrorRetry = ({ error, key, retryCount }) => {
  const retry = retryCount <= MAX_RETRIES && isRetryableStatus(statusOf(error));
  if (retry) givenUp.delete(key);
  else givenUp.add(key);
  return retry ? retryDelayMs(retryCount - 1) : false;
};

const [createFetcherStore, , { invalidateKeys }] = nanoquery({
  // A fresh answer is reused for the cache lifetime without asking again.
  dedupeTime: CACHE_LIFETIME_MS,
  cacheLifetime: CACHE_LIFETIME_MS,
  revalidateOnFocus: false,
  revalidateOnReconnect: false,
  onErrorRetry: retryCatalogueRead,
});

/**
 * A key part that holds the reads back while islands render at build time (null: no request then)
 * and adds nothing to the key in the browser (the empty string). Tests stub `document` for it.
 */
export const $browser = atom<"" | null>(typeof document === "undefined" ? null : "");

/** The key of each catalogue store in the browser (its name: `$browser` adds nothing). */
const keys = new WeakMap<FetcherStore, string>();

function catalogueStore<T>(name: string, load: () => Promise<T>): FetcherStore<T> {
  const store = createFetcherStore<T>([$browser, name], { fetcher: load });
  keys.set(store, name);
  return store;
}

/** The subscription products, cheapest first. */
export const $subscriptionProducts = catalogueStore("subscription-products", async () =>
  byPriceAscending((await apiRequest("/v1/subscription/products", "productListSchema", { auth: true })).data),
);

/** The top-up packs, cheapest first. */
export const $topUpProducts = catalogueStore("top-up-products", async () =>
  byPriceAscending((await apiRequest("/v1/top-up/products", "topUpProductListSchema", { auth: true })).data),
);

export interface CatalogueView<T> {
  data: T | undefined;
  /** True once the read failed and no retry is coming; false while one is. */
  failed: boolean;
}

/** What an island shows for a catalogue store's value (read with useStore). */
export function catalogueView<T>(store: FetcherStore<T>, value: FetcherValue<T>): CatalogueView<T> {
  const key = keys.get(store);
  const failed = value.data === undefined && !!value.error && key !== undefined && givenUp.has(key);
  return { data: value.data, failed };
}

/** Asks again at once for a read that has given up, instead of keeping its failure cached. */
export function retryIfGivenUp(store: FetcherStore): void {
  const key = keys.get(store);
  if (key === undefined || !givenUp.has(key)) return;
  givenUp.delete(key);
  invalidateKeys(key);
}

/** The store's answer now, for a click (after a failure for good, it asks again). Throws its error. */
export async function readNow<T>(store: FetcherStore<T>): Promise<T> {
  retryIfGivenUp(store);
  const result = await store.fetch();
  if ("error" in result) throw result.error;
  return result.data;
}
