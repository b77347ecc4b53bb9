// Metering's pipelined batches (server/billing/pipelined-batches.ts, decision 036) on two server
// processes sharing one PostgreSQL database, as the generation service uses them: a stream of
// charges from 20 workers at once, so that batches follow each other on the pinned connection.
// - An instance killed (SIGKILL) in the middle of the stream, with the workers retrying what got no
//   answer on the other instance: every idempotency key is charged exactly once, and the balance
//   and the ledger agree.
// - A key revoked through one instance while the other meters through it: once the revocation has
//   answered, no charge sent through that key is accepted.
// Both with charges under the organisation's lock (the default) and through credit leases
// (CREDIT_LEASES, decision 051): a killed instance's lease, and a lease the revocation ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generationServiceKey } from "../fixtures/cli.ts";
import { apiLedger } from "../fixtures/ledger-queries.ts";
import {
  createScratchDatabase,
  type ScratchDatabase,
  type ServerProcess,
  skipReason,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
} from "../fixtures/server-process.ts";

const reason = skipReason();
/** Background remover, one person: 0.1 credits a charge (100 milli-credits). */
const FEATURE = "background-remover";
const WORKERS = 20;

describe.skipIf(reason !== "").each([
  { leases: false, env: { CREDIT_LEASES: "false" } },
  { leases: true, env: {} },
])(
  `metering through a kill and a revocation, two instances, credit leases $leases${reason}`,
  ({ leases, env }) => {
    let db: ScratchDatabase;
    const dataDirs = [tempDataDir("meter-a"), tempDataDir("meter-b")];
    let a: ServerProcess;
    let b: ServerProcess;
    let service: string;

    beforeAll(async () => {
      db = await createScratchDatabase("meter");
      const start = (label: string, dir: string) =>
        startServer({ label, databaseUrl: db.url, dataDir: dir, env });
      [a, b] = await Promise.all([
        start("instance A", dataDirs[0]?.dir as string),
        start("instance B", dataDirs[1]?.dir as string),
      ]);
      service = await generationServiceKey(dataDirs[0]?.dir as string, db.url);
    }, 180_000);

    afterAll(async () => {
      await stopServers();
      await db?.drop();
      for (const d of dataDirs) d.remove();
    });

    /** One charge; undefined when no answer came (the instance died under it). */
    async function consume(server: ServerProcess, keyId: string, idempotencyKey: string) {
      try {
        const res = await fetch(`${server.baseUrl}/v1/credits/consume`, {
          method: "POST",
          headers: { Authorization: `Bearer ${service}`, "Content-Type": "application/json" },
          body: JSON.stringify({
            api_key_id: keyId,
            feature: FEATURE,
            people: "one",
            idempotency_key: idempotencyKey,
          }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as {
          ledger_entry_id?: string;
          credit_balance?: number;
          detail?: string;
        };
        return { status: res.status, body };
      } catch {
        return undefined;
      }
    }

    async function newKey(server: ServerProcess, token: string) {
      const res = await fetch(`${server.baseUrl}/v1/api-keys`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "metering" }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    }

    it("charges every idempotency key once when an instance dies mid-stream and the rest go to the other", async () => {
      const ann = await verifiedAccount(a, uniqueName("meter"));
      const key = await newKey(a, ann.accessToken);
      const total = 300;
      const first = new Map<string, string>();
      let answered = 0;
      let byA = 0;
      let byB = 0;
      let killing: Promise<void> | undefined;
      let next = 0;
      const worker = async () => {
        while (next < total) {
          const idempotencyKey = `crash-${next++}`;
          // To A until it is gone; what A leaves unanswered is sent again to B, as a client would.
          let answer = a.running() ? await consume(a, key.id, idempotencyKey) : undefined;
          if (answer) byA += 1;
          else {
            answer = await consume(b, key.id, idempotencyKey);
            byB += 1;
          }
          expect(answer?.status, JSON.stringify(answer?.body)).toBe(200);
          first.set(idempotencyKey, answer?.body.ledger_entry_id as string);
          answered += 1;
          if (answered === 100) killing = a.kill("SIGKILL");
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      await killing;
      expect(a.running()).toBe(false);
      expect(first.size).toBe(total);
      // The kill fell in the middle: A answered a part, B the rest.
      expect(byA).toBeGreaterThanOrEqual(100);
      expect(byB).toBeGreaterThan(WORKERS);

      // Every key again, on B: each answers its first charge and charges nothing more.
      for (const [idempotencyKey, entry] of first) {
        const again = await consume(b, key.id, idempotencyKey);
        expect(again?.status).toBe(200);
        expect(again?.body.ledger_entry_id).toBe(entry);
      }
      const [spends] = await db.sql<{ n: number; keys: number; amount: string }[]>`
      select count(*)::int as n, count(distinct idempotency_key)::int as keys, sum(amount)::text as amount
      from credit_spends where api_key_id = ${key.id}`;
      expect(spends).toEqual({ n: total, keys: total, amount: String(total * 100) });
      // With leases on, charges went through them (else this would test the lock twice).
      const [through] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from credit_spends where api_key_id = ${key.id} and lease_id is not null`;
      if (leases) expect(through?.n).toBeGreaterThan(50);
      else expect(through?.n).toBe(0);
      const ledger = await apiLedger(b, ann.accessToken);
      expect(ledger.me.credit_balance).toBeCloseTo(50 - total * 0.1, 3);
      expect(ledger.liveSum).toBeCloseTo(ledger.me.credit_balance, 3);
      a = await startServer({
        label: "instance A again",
        databaseUrl: db.url,
        dataDir: dataDirs[0]?.dir as string,
        env,
      });
    }, 240_000);

    it("accepts no charge sent through a key after its revocation through the other instance answered", async () => {
      const bob = await verifiedAccount(a, uniqueName("meter"));
      const key = await newKey(a, bob.accessToken);
      let revokedAt: number | undefined;
      let sent = 0;
      const afterRevocation: number[] = [];
      let accepted = 0;
      const worker = async () => {
        // Until a good while after the revocation, or out of credits.
        while (revokedAt === undefined || Date.now() - revokedAt < 1_000) {
          const sentAt = Date.now();
          const answer = await consume(b, key.id, `revoke-${sent++}`);
          if (revokedAt !== undefined && sentAt > revokedAt) afterRevocation.push(answer?.status ?? 0);
          else if (answer?.status === 200) accepted += 1;
          if (answer?.status === 402) break;
        }
      };
      const revoke = async () => {
        while (accepted < 50) await new Promise((r) => setTimeout(r, 5));
        const res = await fetch(`${a.baseUrl}/v1/api-keys/${key.id}`, {
          method: "DELETE",
          headers: { Authorization: `Bearer ${bob.accessToken}` },
        });
        expect(res.status).toBe(204);
        revokedAt = Date.now();
      };
      await Promise.all([revoke(), ...Array.from({ length: WORKERS }, worker)]);
      expect(afterRevocation.length).toBeGreaterThan(20);
      expect(new Set(afterRevocation)).toEqual(new Set([404]));
    }, 120_000);
  },
);
