import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { ManualClock } from "../clock.ts";
import { postgresListener } from "../db/listen.ts";
import { postgresChannel } from "../db/postgres-channel.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { createTokenRevocations, REVOCATION_CHANNEL, type RevocationChannel } from "./token-revocations.ts";

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
};

describe.each(TEST_DATABASES)("token revocations (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("refuses a revoked id at once, and a starting instance loads what is still unexpired", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const clock = new ManualClock(ctx.t.clock.now());
    const here = createTokenRevocations(ctx.database.db, clock);
    await here.start();
    const exp = Math.floor(clock.now().getTime() / 1000) + 60;
    await ctx.database.db.transaction((tx) => here.revoke(tx, { jti: "j-live", userId: ann.id, exp }));
    await ctx.database.db.transaction((tx) =>
      here.revoke(tx, { jti: "j-old", userId: ann.id, exp: exp - 120 }),
    );
    expect(here.isRevoked("j-live")).toBe(true);
    expect(here.isRevoked("j-other")).toBe(false);
    const later = createTokenRevocations(ctx.database.db, clock);
    await later.start();
    expect(later.isRevoked("j-live")).toBe(true);
    // Expired by itself: not worth keeping.
    expect(later.isRevoked("j-old")).toBe(false);
    await here.close();
    await later.close();
  });

  it("hears a sign-out made elsewhere within its resync, though its channel went deaf", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const clock = new ManualClock(ctx.t.clock.now());
    // A channel whose listening failed without a word after a reconnect: it never hears a thing.
    const deaf: RevocationChannel = {
      notify: async () => {},
      listen: async (_onPayload, onResync) => onResync(),
    };
    const elsewhere = createTokenRevocations(ctx.database.db, clock);
    const here = createTokenRevocations(ctx.database.db, clock, deaf, 50);
    await Promise.all([elsewhere.start(), here.start()]);
    const exp = Math.floor(clock.now().getTime() / 1000) + 60;
    await ctx.database.db.transaction((tx) =>
      elsewhere.revoke(tx, { jti: "j-elsewhere", userId: ann.id, exp }),
    );
    expect(here.isRevoked("j-elsewhere")).toBe(false);
    expect(await waitFor(() => here.isRevoked("j-elsewhere"), 2000)).toBe(true);
    // Closed, it reads no more: a revocation after that stays unheard.
    await here.close();
    await ctx.database.db.transaction((tx) => elsewhere.revoke(tx, { jti: "j-after", userId: ann.id, exp }));
    expect(await waitFor(() => here.isRevoked("j-after"), 300)).toBe(false);
    await elsewhere.close();
  });
});

// Instances meet through PostgreSQL's LISTEN/NOTIFY; PGlite runs one instance only.
describe.each(TEST_DATABASES.filter((kind) => kind === "postgres"))(
  "token revocations between instances (%s)",
  (kind) => {
    const ctx = useTestApp(kind);

    it("tells every other instance within a second, and nothing for a revocation rolled back", async () => {
      const ann = await verifiedUser(ctx.t, "ann");
      const url = ctx.database.url as string;
      const clock = new ManualClock(ctx.t.clock.now());
      // Each instance has its own LISTEN connection.
      const listeners = [postgresListener(url), postgresListener(url)];
      const [a, b] = listeners.map((listener) =>
        createTokenRevocations(ctx.database.db, clock, postgresChannel(listener.listen, REVOCATION_CHANNEL)),
      ) as [ReturnType<typeof createTokenRevocations>, ReturnType<typeof createTokenRevocations>];
      await Promise.all([a.start(), b.start()]);
      const exp = Math.floor(clock.now().getTime() / 1000) + 60;
      const started = Date.now();
      await ctx.database.db.transaction((tx) => a.revoke(tx, { jti: "j-1", userId: ann.id, exp }));
      expect(await waitFor(() => b.isRevoked("j-1"), 1000)).toBe(true);
      expect(Date.now() - started).toBeLessThan(1000);
      await ctx.database.db
        .transaction(async (tx) => {
          await a.revoke(tx, { jti: "j-2", userId: ann.id, exp });
          throw new Error("rolled back");
        })
        .catch(() => undefined);
      expect(await waitFor(() => b.isRevoked("j-2"), 300)).toBe(false);
      await a.close();
      await b.close();
      await Promise.all(listeners.map((listener) => listener.close()));
    });
  },
);
