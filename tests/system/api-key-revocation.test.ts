// Two server processes on one PostgreSQL: a key revoked through one stops working on the other
// within a second, and the operator makes the service key with `npm run service-key` while the
// servers run (through instance A's operator socket). A member removed from an organisation through
// one instance has no usable key on the other at once (consume), and the keys they made are
// revoked. B keeps introspections up to 1 s (decision 034): each test first makes B keep the key's
// answer, and measures how long after A's answer B still gives it (printed; the decision records
// the figures). A user disabled by any other path (SQL here) is heard just as well.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTROSPECTION_TTL_MS } from "../../server/api-access/introspection-cache.ts";
import { listOutbox } from "../../server/mail/outbox.ts";
import { printedServiceKey, runCli } from "../fixtures/cli.ts";
import {
  createScratchDatabase,
  type ScratchDatabase,
  type ServerProcess,
  skipReason,
  sleep,
  startServer,
  stopServers,
  tempDataDir,
  uniqueName,
  verifiedAccount,
  waitFor,
} from "../fixtures/server-process.ts";

const reason = skipReason();

describe.skipIf(reason !== "")(`API key revocation across two instances${reason}`, () => {
  let db: ScratchDatabase;
  const dataDirs = [tempDataDir("keys-a"), tempDataDir("keys-b")];
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    db = await createScratchDatabase("keys");
    // The trials make and revoke keys in quick succession.
    const env = { RATE_LIMIT_ACCOUNT_WRITE_PER_MINUTE: "1000" };
    const start = (label: string, dir: string) =>
      startServer({ label, databaseUrl: db.url, dataDir: dir, env });
    [a, b] = await Promise.all([
      start("instance A", dataDirs[0]?.dir as string),
      start("instance B", dataDirs[1]?.dir as string),
    ]);
  }, 180_000);

  afterAll(async () => {
    await stopServers();
    await db?.drop();
    for (const d of dataDirs) d.remove();
  });

  const introspect = async (server: ServerProcess, service: string, token: string) => {
    const res = await fetch(`${server.baseUrl}/v1/introspect`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { active: boolean };
  };

  let service: string;

  /** A charge through the key on `server`, as the generation service sends it: its status. */
  const charge = async (server: ServerProcess, keyId: string, idempotencyKey: string) => {
    const res = await fetch(`${server.baseUrl}/v1/credits/consume`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        api_key_id: keyId,
        feature: "background-remover",
        people: "one",
        idempotency_key: idempotencyKey,
      }),
    });
    return res.status;
  };

  /** A new API key of the account, made through B. */
  const newKeyOnB = async (accessToken: string, name: string) => {
    const created = await fetch(`${b.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(created.status).toBe(201);
    return (await created.json()) as { id: string; key: string };
  };

  /**
   * Milliseconds from `since` (the change's answer or commit) to B's first inactive answer for
   * `token`, asking B at once and then every 10 ms; and how many times B was asked.
   */
  const delayUntilInactive = async (token: string, since: number) => {
    for (let asked = 1; ; asked++) {
      const answer = await introspect(b, service, token);
      const ms = performance.now() - since;
      if (!answer.active) return { ms, asked };
      if (ms > 5000) throw new Error(`B still answered active ${Math.round(ms)} ms after the change`);
      await sleep(10);
    }
  };

  /** B answers `token` active, and keeps that answer: a charge made on A right after does not show in it. */
  const keptOnB = async (token: string, keyId: string) => {
    for (let attempt = 0; ; attempt++) {
      const start = performance.now();
      const first = await introspect(b, service, token);
      expect(first.active).toBe(true);
      expect(await charge(a, keyId, `kept-${keyId}-${attempt}`)).toBe(200);
      const again = await introspect(b, service, token);
      // On a machine slow enough to let the second pass, try again: the answer is kept 1 s only.
      if (performance.now() - start < INTROSPECTION_TTL_MS || attempt === 2) {
        expect(again).toEqual(first);
        return;
      }
    }
  };

  const report = (what: string, delays: { ms: number; asked: number }[]) => {
    const sorted = delays.map((d) => d.ms).sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    const atOnce = delays.filter((d) => d.asked === 1).length;
    console.log(
      `${what}: B answered inactive ${median.toFixed(1)} ms (median), ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms (max) after it, ` +
        `at the first ask in ${atOnce} of ${delays.length} trials: ${delays.map((d) => d.ms.toFixed(1)).join(", ")} ms`,
    );
    for (const delay of delays) expect(delay.ms).toBeLessThan(1000);
  };

  const TRIALS = 10;

  it("revoked through A, refused by B within 1 s, though B kept the key's answer", async () => {
    // The operator's command, run while both servers are up: it reaches A through its socket.
    const cli = await runCli(
      "scripts/service-key.ts",
      ["create", "generation-api", "--scopes", "introspect,credits:consume"],
      { DATA_DIR: dataDirs[0]?.dir, DATABASE_URL: db.url, LOG_LEVEL: "silent" },
    );
    expect(cli.status, cli.stderr).toBe(0);
    service = printedServiceKey(cli) as string;
    expect(service).toBeDefined();

    const ann = await verifiedAccount(a, uniqueName("keys"));
    const delays: { ms: number; asked: number }[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const key = await newKeyOnB(ann.accessToken, `two instances ${trial}`);
      await keptOnB(key.key, key.id);

      const revoked = await fetch(`${a.baseUrl}/v1/api-keys/${key.id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${ann.accessToken}` },
      });
      expect(revoked.status).toBe(204);
      delays.push(await delayUntilInactive(key.key, performance.now()));
      expect(await charge(b, key.id, `after-${trial}`)).toBe(404);
    }
    report("A key revoked through A (from A's answer)", delays);
  }, 120_000);

  it("a user disabled by any path (SQL here) has no active key on B within 1 s", async () => {
    expect(service).toBeDefined();
    const delays: { ms: number; asked: number }[] = [];
    for (let trial = 0; trial < 3; trial++) {
      const cora = await verifiedAccount(b, uniqueName("cora"));
      const key = await newKeyOnB(cora.accessToken, "disabled");
      await keptOnB(key.key, key.id);
      await db.sql`update users set disabled_at = now() where id = ${cora.id}`;
      delays.push(await delayUntilInactive(key.key, performance.now()));
    }
    report("A user disabled in the database (from the commit)", delays);
  }, 120_000);

  it("a member removed through A has no usable key on B at once, and their keys are revoked", async () => {
    expect(service).toBeDefined();
    const call = (server: ServerProcess, path: string, token: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers },
      });
    const owner = await verifiedAccount(a, uniqueName("owner"));
    const dev = await verifiedAccount(b, uniqueName("dev"));
    const made = await call(a, "/v1/orgs", owner.accessToken, {
      method: "POST",
      body: JSON.stringify({ name: "Two instances" }),
    });
    expect(made.status).toBe(201);
    const org = (await made.json()) as { id: string };
    const invited = await call(a, `/v1/orgs/${org.id}/invitations`, owner.accessToken, {
      method: "POST",
      body: JSON.stringify({ email: dev.email, role: "developer" }),
    });
    expect(invited.status).toBe(201);
    const link = await waitFor(`the invitation to ${dev.email}`, async () => {
      const mail = (await listOutbox(join(a.dataDir, "outbox"))).find(
        (m) => m.to.includes(dev.email) && m.links.some((l) => l.includes("/invitations/")),
      );
      return mail?.links.find((l) => l.includes("/invitations/"));
    });
    const token = decodeURIComponent(link.split("/").at(-1) ?? "");
    expect(
      (await call(b, `/v1/invitations/${token}/accept`, dev.accessToken, { method: "POST" })).status,
    ).toBe(200);

    const created = await call(b, "/v1/api-keys", dev.accessToken, {
      method: "POST",
      headers: { "X-Organization": org.id },
      body: JSON.stringify({ name: "member key" }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string };
    expect(await introspect(b, service, key.key)).toMatchObject({ active: true, sub: org.id });

    const removed = await call(a, `/v1/orgs/${org.id}/members/${dev.id}`, owner.accessToken, {
      method: "DELETE",
    });
    expect(removed.status).toBe(200);
    const removedAt = performance.now();
    expect(JSON.stringify(await removed.json())).toContain(key.id);
    // Consume reads the key under lock: refused at once. Introspection: once B hears of it.
    expect(await charge(b, key.id, "removed")).toBe(404);
    report("A member removed through A (from A's answer, consume on B asked first)", [
      await delayUntilInactive(key.key, removedAt),
    ]);
    // B answers the removed member as a stranger to the organisation.
    expect(
      (await call(b, "/v1/api-keys", dev.accessToken, { headers: { "X-Organization": org.id } })).status,
    ).toBe(404);
  }, 120_000);
});
