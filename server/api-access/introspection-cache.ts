// Each instance's cache of active API key introspections (decision 034). The generation service
// asks about the same few keys many times a second, and each answer is a read whose CPU bounds
// the call. An answer is kept at most 1 s, and every instance drops all it keeps as soon as a
// committed change may have made one wrong: migration 0019's triggers notify the channel on a key
// revoked or edited, a user or an organisation disabled or deleted, a member removed or their cap
// changed, whatever code path made the change. Only active answers are kept (unknown tokens must
// not fill memory), under the key's SHA-256, never the key itself. Consume never reads it.
import { LRUCache } from "lru-cache";
import type { Introspection } from "../../contract/api-keys.ts";
import type { Listen, Unlisten } from "../db/listen.ts";
import { hashKey } from "./key-format.ts";

/** The channel migration 0019's triggers notify. */
export const INTROSPECTION_CHANNEL = "portal_introspection";
/** How long an answer is kept: also how old a cached balance, plan or month's spend may be. */
export const INTROSPECTION_TTL_MS = 1000;
/** Keys kept at most, the least recently asked about going first: about 2 KB each, 20 MB in all. */
export const INTROSPECTION_CACHE_MAX = 10_000;

/** An active API key's introspection, with what a kept copy must still check. */
export interface KeyIntrospection {
  answer: Introspection;
  keyId: string;
  /** The key's own expiry: a kept answer is inactive from then on. */
  expiresAt: Date | null;
}

export interface IntrospectionCache {
  /**
   * The API key `token`'s introspection at `now`: a kept answer while it holds, else `load()`'s,
   * kept when it is active and nothing was notified while it was read; undefined when inactive.
   */
  answer(
    token: string,
    now: Date,
    load: () => Promise<KeyIntrospection | undefined>,
  ): Promise<KeyIntrospection | undefined>;
  /** Settles once listening, from when answers are kept; rejects when LISTEN fails. */
  ready: Promise<void>;
  /** Stops listening (the database handle closes the connection). */
  close(): Promise<void>;
}

export interface IntrospectionCacheOptions {
  /** Milliseconds that never go back, for the 1 s: `performance.now` (tests pass their clock). */
  monotonicNow?: () => number;
  max?: number;
}

/** Whether a kept answer still holds at `now`: its key has not expired since (the rest is the 1 s). */
export const stillUsable = (kept: KeyIntrospection, now: Date): boolean =>
  kept.expiresAt === null || kept.expiresAt.getTime() > now.getTime();

export function createIntrospectionCache(
  listen: Listen,
  options: IntrospectionCacheOptions = {},
): IntrospectionCache {
  const kept = new LRUCache<string, KeyIntrospection>({
    max: options.max ?? INTROSPECTION_CACHE_MAX,
    ttl: INTROSPECTION_TTL_MS,
    // Each read looks at the time: a cached "now" could let an answer outlive its second.
    ttlResolution: 0,
    perf: { now: options.monotonicNow ?? (() => performance.now()) },
  });
  // Nothing is kept until listening: before, a change on another instance would go unheard.
  let listening = false;
  // A new one at every drop: an answer read across a drop may predate the change and is not kept.
  let generation = {};
  const dropAll = () => {
    generation = {};
    kept.clear();
  };
  const started: Promise<Unlisten> = listen(INTROSPECTION_CHANNEL, dropAll, () => {
    // Listening (again, after a reconnect): whatever was notified while down was missed.
    dropAll();
    listening = true;
  });
  const ready = started.then(() => undefined);
  ready.catch(() => undefined); // whoever needs the cache awaits `ready`; nobody else must crash

  return {
    ready,
    async answer(token, now, load) {
      const digest = hashKey(token);
      const hit = kept.get(digest);
      if (hit) return stillUsable(hit, now) ? hit : undefined;
      const readIn = generation;
      const loaded = await load();
      if (loaded && listening && generation === readIn) kept.set(digest, loaded);
      return loaded;
    },
    async close() {
      listening = false;
      dropAll();
      const unlisten = await started.catch(() => undefined);
      await unlisten?.();
    },
  };
}
