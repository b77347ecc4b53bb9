// The introspection cache on its own (no database): what it keeps, for how long, and what drops it.
// A stand-in for LISTEN hands the test the channel's callbacks.
import { describe, expect, it, vi } from "vitest";
import type { Introspection } from "../../contract/api-keys.ts";
import type { Listen } from "../db/listen.ts";
import {
  createIntrospectionCache,
  INTROSPECTION_CHANNEL,
  INTROSPECTION_TTL_MS,
  type KeyIntrospection,
  stillUsable,
} from "./introspection-cache.ts";
import { generateKey } from "./key-format.ts";

const NOW = new Date("2030-01-15T10:00:00.000Z");

function active(keyId: string, expiresAt: Date | null = null): KeyIntrospection {
  const answer = { active: true, token_type: "api_key", key_id: keyId } as Introspection;
  return { answer, keyId, expiresAt };
}

/** A LISTEN the test drives: `notify()` as a committed change, `resync()` as a reconnect. */
function fakeChannel() {
  let onPayload: ((payload: string) => void) | undefined;
  let onResync: (() => void) | undefined;
  const unlisten = vi.fn(async () => {});
  const channels: string[] = [];
  const listen: Listen = async (channel, payload, resync) => {
    channels.push(channel);
    onPayload = payload;
    onResync = resync;
    resync();
    return unlisten;
  };
  return {
    listen,
    channels,
    unlisten,
    notify: (table = "api_keys") => onPayload?.(table),
    resync: () => onResync?.(),
  };
}

function setup(options: { max?: number } = {}) {
  const channel = fakeChannel();
  let ms = 1_000_000; // lru-cache reads a start at 0 as "no time limit"; no clock it is given is at 0
  const cache = createIntrospectionCache(channel.listen, { monotonicNow: () => ms, ...options });
  const advance = (by: number) => {
    ms += by;
  };
  return { cache, channel, advance };
}

/** A load that counts its reads and answers `found`. */
function reads(found: KeyIntrospection | undefined) {
  return vi.fn(async () => found);
}

describe("the introspection cache", () => {
  it("listens on the channel migration 0019's triggers notify", async () => {
    const { cache, channel } = setup();
    await cache.ready;
    expect(channel.channels).toEqual([INTROSPECTION_CHANNEL]);
    expect(INTROSPECTION_CHANNEL).toBe("portal_introspection");
  });

  it("answers an active key from memory until its second is over, then reads again", async () => {
    const { cache, advance } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = reads(active("k1"));
    const first = await cache.answer(token, NOW, load);
    advance(INTROSPECTION_TTL_MS);
    expect(await cache.answer(token, NOW, load)).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
    advance(1);
    expect(await cache.answer(token, NOW, load)).toEqual(first);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("does not make an answer live longer by asking for it", async () => {
    const { cache, advance } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = reads(active("k1"));
    await cache.answer(token, NOW, load);
    // Asked at 0.3, 0.6 and 0.9 s: still the first read's answer at 1.2 s would mean asking renewed it.
    for (let i = 0; i < 4; i++) {
      advance(300);
      await cache.answer(token, NOW, load);
    }
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("never keeps an inactive answer: an unknown token is read every time", async () => {
    const { cache } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = reads(undefined);
    expect(await cache.answer(token, NOW, load)).toBeUndefined();
    expect(await cache.answer(token, NOW, load)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("keeps each key apart", async () => {
    const { cache } = setup();
    await cache.ready;
    const [one, two] = [generateKey("api").key, generateKey("api").key];
    expect((await cache.answer(one, NOW, reads(active("k1"))))?.keyId).toBe("k1");
    expect((await cache.answer(two, NOW, reads(active("k2"))))?.keyId).toBe("k2");
    expect((await cache.answer(one, NOW, reads(active("other"))))?.keyId).toBe("k1");
  });

  it.each([
    { expires: "never", expiresAt: null, now: NOW, usable: true },
    { expires: "a millisecond after now", expiresAt: new Date(NOW.getTime() + 1), now: NOW, usable: true },
    { expires: "exactly now", expiresAt: NOW, now: NOW, usable: false },
    { expires: "before now", expiresAt: new Date(NOW.getTime() - 1), now: NOW, usable: false },
  ])("a kept answer whose key expires $expires holds: $usable", async ({ expiresAt, now, usable }) => {
    expect(stillUsable(active("k1", expiresAt), now)).toBe(usable);
  });

  it("answers inactive, without a read, once the kept key's own expiry has passed", async () => {
    const { cache } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const expiresAt = new Date(NOW.getTime() + 500);
    const load = reads(active("k1", expiresAt));
    expect(await cache.answer(token, NOW, load)).toBeDefined();
    expect(await cache.answer(token, new Date(NOW.getTime() + 499), load)).toBeDefined();
    expect(await cache.answer(token, expiresAt, load)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("keeps at most `max` keys, dropping the one asked about least recently", async () => {
    const { cache } = setup({ max: 2 });
    await cache.ready;
    const [a, b, c] = [generateKey("api").key, generateKey("api").key, generateKey("api").key];
    const loads = { a: reads(active("a")), b: reads(active("b")), c: reads(active("c")) };
    await cache.answer(a, NOW, loads.a);
    await cache.answer(b, NOW, loads.b);
    await cache.answer(a, NOW, loads.a); // a is now the most recent
    await cache.answer(c, NOW, loads.c); // b goes
    await cache.answer(a, NOW, loads.a);
    await cache.answer(b, NOW, loads.b);
    expect([loads.a, loads.b, loads.c].map((l) => l.mock.calls.length)).toEqual([1, 2, 1]);
  });

  it.each(["api_keys", "users", "organizations", "organization_members", ""])(
    "drops everything it keeps when a change is notified (%s)",
    async (table) => {
      const { cache, channel } = setup();
      await cache.ready;
      const [one, two] = [generateKey("api").key, generateKey("api").key];
      const loads = [reads(active("k1")), reads(active("k2"))] as const;
      await cache.answer(one, NOW, loads[0]);
      await cache.answer(two, NOW, loads[1]);
      channel.notify(table);
      await cache.answer(one, NOW, loads[0]);
      await cache.answer(two, NOW, loads[1]);
      expect(loads.map((l) => l.mock.calls.length)).toEqual([2, 2]);
    },
  );

  it("drops everything when listening starts again after a reconnect (changes may have been missed)", async () => {
    const { cache, channel } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = reads(active("k1"));
    await cache.answer(token, NOW, load);
    channel.resync();
    await cache.answer(token, NOW, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("does not keep an answer read while a change was notified: it may predate the change", async () => {
    const { cache, channel } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = vi.fn(async () => {
      channel.notify();
      return active("k1");
    });
    expect((await cache.answer(token, NOW, load))?.keyId).toBe("k1");
    await cache.answer(token, NOW, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("keeps nothing until it listens, and nothing when LISTEN fails", async () => {
    let listening: (() => void) | undefined;
    const later: Listen = async (_channel, _payload, resync) => {
      await new Promise<void>((resolve) => {
        listening = resolve;
      });
      resync();
      return async () => {};
    };
    const cache = createIntrospectionCache(later);
    const token = generateKey("api").key;
    const load = reads(active("k1"));
    await cache.answer(token, NOW, load);
    await cache.answer(token, NOW, load);
    expect(load).toHaveBeenCalledTimes(2);
    listening?.();
    await cache.ready;
    await cache.answer(token, NOW, load);
    await cache.answer(token, NOW, load);
    expect(load).toHaveBeenCalledTimes(3);

    const failing = createIntrospectionCache(async () => {
      throw new Error("LISTEN failed");
    });
    await expect(failing.ready).rejects.toThrow("LISTEN failed");
    const failed = reads(active("k1"));
    await failing.answer(token, NOW, failed);
    await failing.answer(token, NOW, failed);
    expect(failed).toHaveBeenCalledTimes(2);
    await failing.close();
  });

  it("stops listening and keeps nothing more once closed", async () => {
    const { cache, channel } = setup();
    await cache.ready;
    const token = generateKey("api").key;
    const load = reads(active("k1"));
    await cache.answer(token, NOW, load);
    await cache.close();
    expect(channel.unlisten).toHaveBeenCalledTimes(1);
    await cache.answer(token, NOW, load);
    await cache.answer(token, NOW, load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("keeps answers for 1 s of real time by default", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const channel = fakeChannel();
      const cache = createIntrospectionCache(channel.listen);
      await cache.ready;
      vi.advanceTimersByTime(5000);
      const token = generateKey("api").key;
      const load = reads(active("k1"));
      await cache.answer(token, NOW, load);
      vi.advanceTimersByTime(INTROSPECTION_TTL_MS);
      await cache.answer(token, NOW, load);
      expect(load).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(1);
      await cache.answer(token, NOW, load);
      expect(load).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
