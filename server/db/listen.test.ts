// The process's LISTEN connection on PostgreSQL (listen.ts) after the database was out of reach.
// Token revocations and the introspection cache count on hearing `onResync` once it listens again.
// postgres.js swallows a LISTEN that fails while it reconnects; this shows that such a failure is
// not the end of listening: each later connection that closes sends the LISTEN again.
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";
import { postgresListener } from "./listen.ts";

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
};

/**
 * A TCP relay to PostgreSQL that can cut every connection and then swallow new ones without a word:
 * a network that drops packets, where the driver's connect times out (not one refused at once).
 */
async function relayTo(host: string, port: number) {
  let reachable = true;
  let accepted = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  };
  const server: Server = createServer((client) => {
    accepted += 1;
    track(client);
    if (!reachable) return;
    const upstream = connect(port, host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    cut() {
      reachable = false;
      for (const socket of sockets) socket.destroy();
    },
    mend() {
      reachable = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// PostgreSQL only (PGlite has no connections to lose). Without one (`npm test` on a bare machine)
// the suite is reported skipped rather than the file having none.
describe.skipIf(!TEST_DATABASES.includes("postgres"))("listening on postgres", () => {
  const kind = "postgres" as const;
  let database: TestDatabase;
  let notifier: postgres.Sql;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
    notifier = postgres(database.url as string, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await notifier.end({ timeout: 1 });
    await database.close();
  });

  it("listens again, and says so, once the database is back after connects timed out", async () => {
    const direct = new URL(database.url as string);
    const relay = await relayTo(direct.hostname, Number(direct.port || 5432));
    const through = new URL(direct);
    through.hostname = "127.0.0.1";
    through.port = String(relay.port);
    through.searchParams.set("connect_timeout", "1");
    const listener = postgresListener(through.toString());
    const heard: string[] = [];
    let resyncs = 0;
    try {
      await listener.listen(
        "listen_test",
        (payload) => heard.push(payload),
        () => {
          resyncs += 1;
        },
      );
      await notifier`select pg_notify('listen_test', 'before')`;
      expect(await waitFor(() => heard.includes("before"), 2000)).toBe(true);
      expect(resyncs).toBe(1);

      relay.cut();
      const acceptedBefore = relay.accepted();
      // Each connect times out after 1 s; the LISTEN sent for it fails, and postgres.js says nothing.
      expect(await waitFor(() => relay.accepted() - acceptedBefore >= 2, 6000)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await notifier`select pg_notify('listen_test', 'while cut')`;
      expect(resyncs).toBe(1);

      relay.mend();
      expect(await waitFor(() => resyncs === 2, 8000)).toBe(true);
      await notifier`select pg_notify('listen_test', 'after')`;
      expect(await waitFor(() => heard.includes("after"), 2000)).toBe(true);
      // Sent while nobody listened: lost, which is why `onResync` makes the listeners read again.
      expect(heard).toEqual(["before", "after"]);
    } finally {
      await listener.close();
      await relay.close();
    }
  }, 30_000);
});
