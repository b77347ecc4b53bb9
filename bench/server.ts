// The server as it runs for real: `node server/main.ts` in its own process, on a free port, with a
// temporary DATA_DIR, serving the build in dist/. Also seeds the user the benchmarks log in as.

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { envSchema } from "../server/env.ts";
import { operatorSocketPath, sendOperatorCommand } from "../server/operator/socket.ts";
import { ORG_HEADER } from "../server/orgs/membership.ts";
import { berlinToday } from "../src/lib/usage-view.ts";
import { FLOOR_ENV } from "./floor/app.ts";

/** Per-IP and per-account limits raised so the login benchmarks measure the server, not the limiter. */
export const RAISED_RATE_LIMITS: Readonly<Record<string, string>> = {
  RATE_LIMIT_TOKEN_PER_MINUTE: "100000",
  RATE_LIMIT_LOGIN_PAIR_FAILURES_PER_MINUTE: "100000",
  RATE_LIMIT_REGISTER_PER_MINUTE: "100000",
  RATE_LIMIT_EMAIL_PER_MINUTE: "100000",
  RATE_LIMIT_EMAIL_IP_PER_MINUTE: "100000",
  RATE_LIMIT_ACCOUNT_WRITE_PER_MINUTE: "100000",
  RATE_LIMIT_SERVICE_AUTH_FAILURES_PER_MINUTE: "100000",
};

/** The settings the benchmarked server runs with (besides PORT, DATA_DIR and secrets). */
export const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  NODE_ENV: "development",
  LOG_LEVEL: "info",
  HOST: "127.0.0.1",
  // The consume benchmark charges hundreds of thousands of times: the free credits pay for it.
  FREE_INITIAL_CREDITS: "1000000",
  ...RAISED_RATE_LIMITS,
};

/** Every variable server/env.ts reads: none leaks in from the shell running the benchmark. */
const SERVER_VARIABLES = Object.keys(envSchema.shape);

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => done(true)));
  });
}

/** A free port in [from, to], starting at a random place so parallel runs rarely collide. */
export async function freePort(from = 4500, to = 4599): Promise<number> {
  const span = to - from + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = from + ((start + i) % span);
    if (await portIsFree(port)) return port;
  }
  throw new Error(`No free port in ${from}-${to}`);
}

export interface RunningServer {
  /** http://localhost:PORT: the origin the pages are built for (their canonical host). */
  origin: string;
  port: number;
  dataDir: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  databaseUrl?: string | undefined;
  distDir?: string;
  /** Wait this long for /healthz (PGlite's first start runs initdb: seconds). */
  startTimeoutMs?: number;
  /** Settings on top of the benchmark's own (e.g. CREDIT_LEASES). */
  env?: Record<string, string>;
}

async function waitForHealth(origin: string, child: ChildProcess, logFile: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(
        `The server exited with ${child.exitCode}:\n${readFileSync(logFile, "utf8").slice(-3000)}`,
      );
    }
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The server did not answer /healthz within ${timeoutMs} ms (log: ${logFile})`);
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "portal-bench-"));
  const logFile = join(dataDir, "server.log");
  const origin = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SERVER_VARIABLES) delete env[name];
  Object.assign(env, SERVER_SETTINGS, {
    PORT: String(port),
    DATA_DIR: dataDir,
    DIST_DIR: resolve(options.distDir ?? "dist"),
    PORTAL_URL: origin,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, [resolve("server/main.ts")], { env, stdio: ["ignore", log, log] });
  closeSync(log);
  return watched(child, { origin, port, dataDir, logFile }, options.startTimeoutMs ?? 60_000);
}

/** A started server once it answers /healthz, with its stop (SIGTERM, then SIGKILL after 15 s); stopped if it never does. */
async function watched(
  child: ChildProcess,
  where: Omit<RunningServer, "stop">,
  startTimeoutMs: number,
): Promise<RunningServer> {
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(where.dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(where.origin, child, where.logFile, startTimeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...where, stop };
}

/**
 * The floor app (bench/floor/app.ts) in its own process against the project's database, on a free
 * port: the bare calls the project's introspect and consume are measured against (issue 35).
 */
export async function startFloor(databaseUrl: string): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "portal-bench-floor-"));
  const logFile = join(dataDir, "floor.log");
  const origin = `http://127.0.0.1:${port}`;
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, [resolve("bench/floor/app.ts")], {
    env: {
      PATH: process.env.PATH ?? "",
      [FLOOR_ENV.databaseUrl]: databaseUrl,
      [FLOOR_ENV.port]: String(port),
    },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  return watched(child, { origin, port, dataDir, logFile }, 15_000);
}

export interface SeededUser {
  username: string;
  password: string;
  accessToken: string;
}

/** A user with a long usage history, and the range the usage benchmark asks for. */
export interface SeededUsage {
  accessToken: string;
  charges: number;
  days: number;
  /** Berlin days, YYYY-MM-DD. */
  from: string;
  to: string;
}

/** Charges at once while seeding: enough to keep the server busy. */
const SEED_CONCURRENCY = 32;

/**
 * A new user with `charges` charges spread evenly over the last `days` days, made through
 * POST /v1/credits/consume with back-dated times (`at`, which the development server accepts), so the
 * rows are what the generation service's charges write. The user pays with their free credits.
 */
export async function seedUsageHistory(
  server: RunningServer,
  serviceKey: string,
  charges: number,
  days: number,
): Promise<SeededUsage> {
  const user = await seedUser(server.origin);
  const me = (await call(`${server.origin}/v1/users/me`, {
    headers: { Authorization: `Bearer ${user.accessToken}` },
  })) as { id: string };
  const now = Date.now();
  const step = Math.floor((days * 86_400_000 - 60_000) / charges);
  const features = [
    "background-remover",
    "standard-filter",
    "comic",
    "skin-refiner",
    "cloth-swap",
    "multiswap",
  ];
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < charges) {
        const i = next++;
        await call(`${server.origin}/v1/credits/consume`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${serviceKey}` },
          body: JSON.stringify({
            user_id: me.id,
            feature: features[i % features.length],
            people: "one",
            idempotency_key: `history-${i}`,
            at: new Date(now - 60_000 - i * step).toISOString(),
          }),
        });
      }
    }),
  );
  return {
    accessToken: user.accessToken,
    charges,
    days,
    from: berlinToday(new Date(now - (days - 1) * 86_400_000)),
    to: berlinToday(new Date(now)),
  };
}

/** What the generation service's benchmarks call with: API keys of several users and a service key. */
export interface SeededApiAccess {
  /** One API key per user: introspection uses the first, consume goes round all of them. */
  keys: Array<{ key: string; id: string }>;
  serviceKey: string;
}

/**
 * Team organisations of the charged customers (issue 33's budgets): each customer owns one, with
 * credits, a monthly cap on their own spending, and a key made with X-Organization.
 */
export interface SeededOrgs {
  /** The first customer's (the benchmark user's) organisation: GET /v1/users/me with X-Organization. */
  orgId: string;
  /** One key per organisation, in the customers' order: consume goes round all of them. */
  keys: Array<{ key: string; id: string }>;
}

/** Credits each team organisation gets (it starts with none): far more than a run charges. */
export const ORG_CREDITS = 1_000_000;
/** The owners' monthly cap, credits: a cap that is checked and counted on every charge but never reached. */
export const ORG_MEMBER_CAP = 1_000_000;

/**
 * For each user: POST /v1/orgs (the user owns it), credits written into the database by `grant`
 * (no call gives a new organisation credits without a payment), the owner's own monthly cap
 * (PATCH .../members/{user_id}), and an API key made with X-Organization.
 */
export async function seedOrgs(
  origin: string,
  users: readonly SeededUser[],
  grant: (orgIds: readonly string[], credits: number) => Promise<void>,
): Promise<SeededOrgs> {
  const orgs: Array<{ id: string; user: SeededUser }> = [];
  for (const [i, user] of users.entries()) {
    const org = (await call(`${origin}/v1/orgs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${user.accessToken}` },
      body: JSON.stringify({ name: `Benchmark team ${i + 1}` }),
    })) as { id: string };
    orgs.push({ id: org.id, user });
  }
  await grant(
    orgs.map((o) => o.id),
    ORG_CREDITS,
  );
  const keys: SeededOrgs["keys"] = [];
  for (const { id, user } of orgs) {
    const auth = { Authorization: `Bearer ${user.accessToken}` };
    const me = (await call(`${origin}/v1/users/me`, { headers: auth })) as { id: string };
    await call(`${origin}/v1/orgs/${id}/members/${me.id}`, {
      method: "PATCH",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ monthly_credit_cap: ORG_MEMBER_CAP }),
    });
    const created = (await call(`${origin}/v1/api-keys`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json", [ORG_HEADER]: id },
      body: JSON.stringify({ name: "benchmark" }),
    })) as { id: string; key: string };
    keys.push({ key: created.key, id: created.id });
  }
  const first = orgs[0];
  if (!first) throw new Error("seedOrgs: no users");
  // The organisation's balance must be what was granted, else consume would measure refusals.
  const seen = (await call(`${origin}/v1/users/me`, {
    headers: { Authorization: `Bearer ${first.user.accessToken}`, [ORG_HEADER]: first.id },
  })) as { credit_balance: number; organization?: { id: string } };
  if (seen.organization?.id !== first.id || seen.credit_balance !== ORG_CREDITS)
    throw new Error(`The organisation's users/me answered ${JSON.stringify(seen)}`);
  return { orgId: first.id, keys };
}

/** A JSON call that must answer 2xx; answers its body. */
export async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Registers a user, verifies the address with the token from the outbox, and logs in. */
export async function seedUser(origin: string): Promise<SeededUser> {
  const username = `bench_${randomBytes(4).toString("hex")}`;
  const email = `${username}@example.com`;
  const password = `Bench#${randomBytes(6).toString("hex")}A1`;
  const json = { "Content-Type": "application/json" };
  await call(`${origin}/v1/register`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email, username, password, confirmPassword: password }),
  });
  let token: string | undefined;
  for (let attempt = 0; attempt < 50 && !token; attempt++) {
    const outbox = (await call(`${origin}/_dev/mail.json`, {})) as {
      data: { to: string; links: string[] }[];
    };
    const link = outbox.data
      .filter((m) => m.to.includes(email))
      .flatMap((m) => m.links)
      .find((l) => l.includes("/verify-email/"));
    token = link ? decodeURIComponent(link.slice(link.lastIndexOf("/") + 1)) : undefined;
    if (!token) await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error(`No verification mail for ${email} in the outbox`);
  await call(`${origin}/v1/user/verify-email`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ token }),
  });
  const login = (await call(`${origin}/v1/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", username, password }).toString(),
  })) as { access_token: string };
  return { username, password, accessToken: login.access_token };
}

/** An API key for each user (POST /v1/api-keys) and a service key (the operator's command, through the server's socket). */
export async function seedApiAccess(
  server: RunningServer,
  users: readonly SeededUser[],
): Promise<SeededApiAccess> {
  return { keys: await createApiKeys(server.origin, users), serviceKey: await createServiceKey(server) };
}

/** One API key per user (POST /v1/api-keys, their personal organisation's), in the users' order. */
export async function createApiKeys(
  origin: string,
  users: readonly SeededUser[],
): Promise<SeededApiAccess["keys"]> {
  const keys: SeededApiAccess["keys"] = [];
  for (const user of users) {
    const created = (await call(`${origin}/v1/api-keys`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${user.accessToken}` },
      body: JSON.stringify({ name: "benchmark" }),
    })) as { id: string; key: string };
    keys.push({ key: created.key, id: created.id });
  }
  return keys;
}

/** A service key for the generation service's calls: the operator's command, through the server's socket. */
export async function createServiceKey(server: RunningServer): Promise<string> {
  const answer = await sendOperatorCommand(operatorSocketPath(server.dataDir), {
    command: "service-key",
    args: ["create", "benchmark", "--scopes", "introspect,credits:consume"],
  });
  const serviceKey = answer?.ok ? answer.lines.join("\n").match(/gsk_[0-9A-Za-z]{61}/)?.[0] : undefined;
  if (!serviceKey)
    throw new Error(`No service key from the server's operator socket: ${JSON.stringify(answer)}`);
  return serviceKey;
}
