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
    const [startup] = await socketsAfterAClose("after its write left");
    const written = await socketsAfterAClose("before its write leaves");
    expect(written[0]).toBe(0);
    expect(written.length).toBeGreaterThanOrEqual(2);
    // One startup message: the one held back for the closed socket is dropped, not sent after.
    expect(written[1]).toBe(startup);
  });
});

describe.each(TEST_DATABASES.filter((kind) => kind === "postgres"))(
  "postgres.js on %s, as patched",
  (kind) => {
    let database: TestDatabase;
    let admin: postgres.Sql;
    beforeAll(async () => {
      database = await openTestDatabase(kind);
      admin = postgres(database.url as string, { max: 1, onnotice: () => {} });
      await admin`create table driver_probe (n integer)`;
    });
    afterAll(async () => {
      await admin.end({ timeout: 1 });
      await database.close();
    });

    /** A pool of one connection, and a way to wait until the driver has seen that connection close. */
    function poolOfOne() {
      let heard: () => void = () => {};
      let closed = new Promise<void>((resolve) => {
        heard = resolve;
      });
      const sql = postgres(database.url as string, {
        max: 1,
        onnotice: () => {},
        onclose: () => heard(),
      });
      return {
        sql,
        /** Ends the backend of `pid` (waiting until it has), then waits until the driver has heard. */
        async endBackend(pid: number) {
          await admin`select pg_terminate_backend(${pid}, 5000)`;
          await closed;
          closed = new Promise<void>((resolve) => {
            heard = resolve;
          });
        },
      };
    }

    /** Whether an uncaught exception was thrown while `run` ran, and after it for a turn of the loop. */
    async function uncaughtDuring(run: () => Promise<void>): Promise<unknown[]> {
      const uncaught: unknown[] = [];
      const note = (error: unknown) => uncaught.push(error);
      process.on("uncaughtException", note);
      try {
        await run();
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("uncaughtException", note);
      }
      return uncaught;
    }

    it("fails every statement sent on a reserved connection whose backend has ended, and the pool goes on", async () => {
      const { sql, endBackend } = poolOfOne();
      try {
        const uncaught = await uncaughtDuring(async () => {
          const reserved = await sql.reserve();
          const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
          await endBackend(row?.pid ?? 0);
          // Unpatched: "Cannot read properties of null (reading 'write')" thrown from a setImmediate,
          // out of every caller's reach, and the statement never settled. One with a value, new to
          // the connection, and one over 1 KB (sent at once) took other ways to the same end.
          await expect(reserved`select ${1}::int as n`).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
          await expect(reserved`select ${"x".repeat(2000)}::text as t`).rejects.toMatchObject({
            code: "CONNECTION_CLOSED",
          });
          await expect(reserved`select 1`).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
          // Unpatched (after the fix of the crash alone), the connection was left in no queue the
          // pool takes from: its one connection, and so every later query, waited for ever.
          const [answer] = await sql<{ n: number }[]>`select 2 as n`;
          expect(answer?.n).toBe(2);
        });
        expect(uncaught).toEqual([]);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });

    it("fails a statement of a reserved handle whose connection the pool has opened again for another", async () => {
      const { sql, endBackend } = poolOfOne();
      try {
        await admin`truncate driver_probe`;
        const reserved = await sql.reserve();
        const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
        await endBackend(row?.pid ?? 0);
        const other = sql<{ n: number }[]>`select 3 as n`.execute();
        // Unpatched, this insert ran in the other caller's session, and answers were crossed.
        const stale = reserved`insert into driver_probe values (1) returning n`.execute();
        await expect(stale).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
        expect((await other)[0]?.n).toBe(3);
        const [count] = await admin<{ rows: number }[]>`select count(*)::int as rows from driver_probe`;
        expect(count?.rows).toBe(0);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });

    it("fails a transaction's statement once its connection has closed, and the pool goes on", async () => {
      const { sql, endBackend } = poolOfOne();
      try {
        const uncaught = await uncaughtDuring(async () => {
          const done = sql.begin(async (tx) => {
            const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
            // The backend ends while the transaction waits on something else (Stripe, SMTP).
            await endBackend(row?.pid ?? 0);
            await tx`select ${1}::int as n`;
          });
          // Unpatched: the statement threw from a setImmediate, out of every caller's reach.
          await expect(done).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
          const [answer] = await sql<{ n: number }[]>`select 7 as n`;
          expect(answer?.n).toBe(7);
        });
        expect(uncaught).toEqual([]);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });

    it("lets a stale handle's release do nothing: the pool goes on, and another's connection stays its", async () => {
      const { sql, endBackend } = poolOfOne();
      try {
        const stale = await sql.reserve();
        const [row] = await stale<{ pid: number }[]>`select pg_backend_pid() as pid`;
        await endBackend(row?.pid ?? 0);
        // Unpatched, this listed the closed connection as open: the next query failed, and every
        // later one waited for ever (a pool of one, dead for good).
        stale.release();
        const [first] = await sql<{ n: number }[]>`select 6 as n`;
        expect(first?.n).toBe(6);
        const mine = await sql.reserve();
        await mine`begin`;
        // Unpatched, a second release of the same handle handed the connection another caller had
        // pinned to the pool, inside that caller's transaction.
        stale.release();
        const [inside] = await mine<{ open: boolean }[]>`select now() = statement_timestamp() as open`;
        expect(inside?.open).toBe(false);
        await mine`rollback`;
        mine.release();
      } finally {
        await sql.end({ timeout: 1 });
      }
    });

    it("opens the connection again for the next caller after the server ended it during a statement", async () => {
      const { sql } = poolOfOne();
      try {
        const reserved = await sql.reserve();
        // The server's FATAL answers a statement in progress, and no ReadyForQuery follows it: the
        // statement fails as the socket closes, the FATAL's error stays behind in the driver.
        await expect(reserved`select pg_terminate_backend(pg_backend_pid())`).rejects.toMatchObject({
          code: "CONNECTION_CLOSED",
        });
        // Unpatched, the next session's first ReadyForQuery failed whoever the pool connected for
        // with that old FATAL, and handed the connection to that failed caller: the pool hung.
        const next = await sql.reserve();
        const [answer] = await next<{ n: number }[]>`select 4 as n`;
        expect(answer?.n).toBe(4);
        next.release();
        const [after] = await sql<{ n: number }[]>`select 5 as n`;
        expect(after?.n).toBe(5);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
  },
);
