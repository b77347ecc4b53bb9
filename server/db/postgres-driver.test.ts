// The two defects of postgres.js 3.4.9 that patches/postgres+3.4.9.patch mends (decision 037). If
// a test here fails, the patch no longer applies: a new postgres.js without the upstream fix, or an
// install that skipped `patch-package` (the postinstall script).
import { EventEmitter } from "node:events";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES, type TestDatabase } from "../../tests/fixtures/test-db.ts";

/** A socket that takes whatever the driver writes and never answers: only the bytes matter here. */
class SilentSocket extends EventEmitter {
  readyState = "open";
  written = 0;
  write(bytes: Uint8Array | string): boolean {
    this.written += typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.length;
    return true;
  }
  setKeepAlive(): void {}
  end(): void {
    this.readyState = "closed";
  }
  destroy(): void {
    this.readyState = "closed";
  }
}

/**
 * The sockets of one connection that asks a first query: the first closes while its startup message
 * is still held back, then the driver connects again on a second socket. postgres.js holds back a
 * write under 1 KB until the next check phase of the event loop; the close is queued there first
 * (from the socket factory, before the driver writes), so it always comes first.
 */
async function socketsAfterAClose(closeFirst: "before its write leaves" | "after its write left") {
  const sockets: SilentSocket[] = [];
  const sql = postgres({
    host: "driver-test.invalid",
    max: 1,
    connect_timeout: 1,
    onnotice: () => {},
    socket: () => {
      const socket = new SilentSocket();
      sockets.push(socket);
      if (sockets.length === 1) {
        const close = () => socket.emit("close", false);
        if (closeFirst === "before its write leaves") setImmediate(close);
        else setTimeout(close, 20);
      }
      return socket;
    },
  } as unknown as postgres.Options<Record<string, never>>);
  sql`select 1`.execute().catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 300));
  await sql.end({ timeout: 0 }).catch(() => {});
  return sockets.map((s) => s.written);
}

describe("postgres.js, as patched", () => {
  it("writes its startup message on a socket that stays open (the harness works)", async () => {
    const [first] = await socketsAfterAClose("after its write left");
    expect(first).toBeGreaterThan(0);
  });

  it("connects again after a socket closed once its write had left", async () => {
    const written = await socketsAfterAClose("after its write left");
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written[1]).toBeGreaterThan(0);
  });

  it("connects again after a socket closed while its write was held back (never a dead slot)", async () => {
    // Unpatched, closed() cancelled the held-back write but left its timer set: the connection never
    // wrote again, and every later connect of that pool slot ended in CONNECT_TIMEOUT.
    const written = await socketsAfterAClose("before its write leaves");
    expect(written[0]).toBe(0);
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written[1]).toBeGreaterThan(0);
  });
});

describe.each(TEST_DATABASES.filter((kind) => kind === "postgres"))(
  "postgres.js on %s, as patched",
  (kind) => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(kind);
    });
    afterAll(() => database.close());

    it("fails a statement sent on a reserved connection whose backend has ended, and the pool goes on", async () => {
      const uncaught: unknown[] = [];
      const note = (error: unknown) => uncaught.push(error);
      process.on("uncaughtException", note);
      const sql = postgres(database.url as string, { max: 2, onnotice: () => {} });
      try {
        const reserved = await sql.reserve();
        const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
        await sql`select pg_terminate_backend(${row?.pid ?? 0})`;
        // The driver hears of it: the socket closes.
        await new Promise((resolve) => setTimeout(resolve, 200));
        // Unpatched, this statement threw "Cannot read properties of null (reading 'write')" from a
        // setImmediate, out of every caller's reach, and never settled.
        await expect(reserved`select 1`).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
        await new Promise((resolve) => setImmediate(resolve));
        expect(uncaught).toEqual([]);
        // Not handed back (two-trip-transaction.ts does the same): the pool's other connection answers.
        const [answer] = await sql<{ n: number }[]>`select 2 as n`;
        expect(answer?.n).toBe(2);
      } finally {
        process.off("uncaughtException", note);
        await sql.end({ timeout: 1 });
      }
    });
  },
);
