// Two server processes on one PostgreSQL: a key revoked through one stops working on the other
// within a second, and the operator makes the service key with `npm run service-key` while the
// servers run (through instance A's operator socket). A member removed from an organisation through
// one instance has no usable key on the other at once, and the keys they made are revoked.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOutbox } from "../../server/mail/outbox.ts";
import { printedServiceKey, runCli } from "../fixtures/cli.ts";
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
    const start = (label: string, dir: string) => startServer({ label, databaseUrl: db.url, dataDir: dir });
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

  it("revoked through A, refused by B within 1 s", async () => {
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
    const created = await fetch(`${a.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ann.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "two instances" }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string };
    expect((await introspect(b, service, key.key)).active).toBe(true);

    const revoked = await fetch(`${a.baseUrl}/v1/api-keys/${key.id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${ann.accessToken}` },
    });
    expect(revoked.status).toBe(204);
    const revokedAt = Date.now();
    let answer = await introspect(b, service, key.key);
    while (answer.active && Date.now() - revokedAt < 5000) answer = await introspect(b, service, key.key);
    const elapsed = Date.now() - revokedAt;
    expect(answer).toEqual({ active: false });
    expect(elapsed).toBeLessThan(1000);
    const charge = await fetch(`${b.baseUrl}/v1/credits/consume`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service}`, "Content-Type": "application/json" },
      body: JSON.stringify({ api_key_id: key.id, feature: "comic", people: "one", idempotency_key: "after" }),
    });
    expect(charge.status).toBe(404);
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
    expect(JSON.stringify(await removed.json())).toContain(key.id);
    const removedAt = Date.now();
    expect(await introspect(b, service, key.key)).toEqual({ active: false });
    const charge = await fetch(`${b.baseUrl}/v1/credits/consume`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        api_key_id: key.id,
        feature: "comic",
        people: "one",
        idempotency_key: "removed",
      }),
    });
    expect(charge.status).toBe(404);
    expect(Date.now() - removedAt).toBeLessThan(1000);
    // B answers the removed member as a stranger to the organisation.
    expect(
      (await call(b, "/v1/api-keys", dev.accessToken, { headers: { "X-Organization": org.id } })).status,
    ).toBe(404);
  }, 120_000);
});
