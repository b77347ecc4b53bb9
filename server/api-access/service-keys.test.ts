import { describe, expect, it } from "vitest";
import { useTestApp } from "../testing/suite.ts";
import {
  cachedServiceKeyCheck,
  createServiceKey,
  revokeServiceKey,
  SERVICE_KEY_CACHE_MS,
} from "./service-keys.ts";

describe("cachedServiceKeyCheck", () => {
  const ctx = useTestApp("pglite");

  it("remembers a valid key for a second, so a revoked key stops within that second", async () => {
    let now = 0;
    const check = cachedServiceKeyCheck(ctx.database.db, () => now);
    const created = await createServiceKey(ctx.database.db, "gen", ["introspect"], ctx.t.clock.now());
    expect((await check(created.key))?.id).toBe(created.id);
    await revokeServiceKey(ctx.database.db, created.id, ctx.t.clock.now());
    now = SERVICE_KEY_CACHE_MS - 1;
    expect((await check(created.key))?.id).toBe(created.id);
    now = SERVICE_KEY_CACHE_MS;
    expect(await check(created.key)).toBeUndefined();
    // A wrong key is never remembered as good.
    expect(await check(`${created.key.slice(0, -1)}x`)).toBeUndefined();
  });
});
