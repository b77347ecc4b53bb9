// The operator console's budgets (OPERATIONS.md), on PostgreSQL: customer search with 100,000
// users, the customer page (all its calls at once) with 1,000,000 spends in the database, the
// metrics of 90 days, and what an audit entry adds to an action. The data is written straight into
// a fresh database with generate_series (seconds, not hours of API calls); the figures are each
// call's latency from a single client, one call at a time, as a staff member's clicks come.
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { appendAudit } from "../server/audit/audit-log.ts";
import { openPostgres } from "../server/db/client.ts";
import { turnOnTwoFactorOverHttp } from "../server/testing/two-factor-over-http.ts";
import { createTempDatabase } from "./postgres.ts";
import { type RunningServer, seedUser, startServer } from "./server.ts";

export const CONSOLE_DATA = { users: 100_000, spenders: 1_000, spendsPerSpender: 1_000, days: 90 } as const;

export interface LatencyFigures {
  label: string;
  samples: number;
  p50: number;
  p99: number;
}

export interface ConsoleFigures {
  users: number;
  spends: number;
  search: LatencyFigures[];
  customerPage: LatencyFigures;
  metrics90: LatencyFigures;
  /** Median ms of a transaction with an audit append, minus one without. */
  auditAppendMs: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function timed(label: string, samples: number, run: () => Promise<void>): Promise<LatencyFigures> {
  for (let i = 0; i < 5; i++) await run(); // warm the connection pool and the plans
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { label, samples, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** Fills the database: users, keys, grants, invoices, spends and their daily sums, audit entries. */
async function seed(url: string, customerId: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const { users, spenders, spendsPerSpender, days } = CONSOLE_DATA;
  try {
    await sql`insert into users (id, username, email, password_hash, email_verified, created_at, updated_at)
      select gen_random_uuid(), 'member' || i, 'member' || i || '@example.com', 'x', i % 10 <> 0,
             now() - make_interval(mins => i), now()
      from generate_series(1, ${users}) i`;
    await sql`insert into api_keys (id, user_id, name, prefix, secret_hash, created_at)
      select substr(md5(u.id::text), 1, 12), u.id, 'key', 'gpk_' || substr(md5(u.id::text), 1, 12), md5(u.username), now()
      from users u where u.username like 'member%' and u.email_verified`;
    // The spenders: the first thousand members and the measured customer.
    await sql`create temporary table spenders as
      select id from users where username like 'member%' order by username limit ${spenders - 1}`;
    await sql`insert into spenders values (${customerId})`;
    await sql`insert into credit_grants (id, user_id, kind, amount, remaining, granted_at, source, fulfilment_key)
      select gen_random_uuid(), s.id, 'topup', 50000000, 40000000, now() - interval '100 days', 'bench pack', 'bench:' || s.id
      from spenders s`;
    await sql`insert into credit_spends (id, user_id, amount, reason, idempotency_key, balance_after, takes, feature, people, quantity, created_at)
      select gen_random_uuid(), s.id, 1000, 'bench', 'job-' || n, 1000, '[]'::jsonb,
             (array['comic','background-remover','image-to-video'])[1 + n % 3], 'one', 1,
             now() - make_interval(mins => (n * 131) % (${days} * 1440))
      from spenders s cross join generate_series(1, ${spendsPerSpender}) n`;
    await sql`insert into usage_daily (user_id, day, feature, api_key_id, uses, credits)
      select user_id, (created_at at time zone 'Europe/Berlin')::date, feature, '', count(*), sum(amount)
      from credit_spends group by 1, 2, 3`;
    await sql`insert into invoices (id, user_id, fulfilment_key, provider, kind, status, number, series, sequence, issued_at,
        description, currency, net, tax, total, tax_treatment, tax_rate_basis_points, seller, buyer, created_at, updated_at)
      select gen_random_uuid(), u.id, 'bench-inv:' || u.id, 'local', 'topup', 'paid', 'INV-2026-' || lpad(n::text, 6, '0'),
             'INV-2026', n, now() - make_interval(days => (n % 90)::int), '500 credit pack', 'eur', 4900, 931, 5831, 'domestic', 1900,
             '{"name":"Seller","country":"DE","vatId":null}'::jsonb, '{"name":null,"country":"DE","vatId":null}'::jsonb, now(), now()
      from (select id, row_number() over (order by id) n from users where username like 'member%' limit 20000) u`;
    await sql`analyze`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function measureAuditAppend(url: string, samples: number): Promise<number> {
  const handle = openPostgres(url, 1);
  try {
    const entry = {
      actorId: null,
      actorLabel: "bench",
      action: "bench.append",
      subjectUserId: null,
      reason: "benchmark",
      details: { n: 1 },
      ip: null,
    };
    const run = async (append: boolean) => {
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await handle.db.transaction(async (tx) => {
          if (append) await appendAudit(tx, entry, new Date());
          else await tx.execute("select 1" as never);
        });
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return percentile(times, 50);
    };
    await run(true);
    await run(false);
    return (await run(true)) - (await run(false));
  } finally {
    await handle.close();
  }
}

export async function measureConsole(options: {
  adminUrl: string;
  distDir: string;
  samples?: number;
  log?: (line: string) => void;
}): Promise<ConsoleFigures> {
  const log = options.log ?? (() => {});
  const samples = options.samples ?? 200;
  const database = await createTempDatabase(options.adminUrl);
  let server: RunningServer | undefined;
  try {
    server = await startServer({ databaseUrl: database.url, distDir: options.distDir });
    const staff = await seedUser(server.origin);
    const customer = await seedUser(server.origin);
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    let customerId: string;
    try {
      await sql`update users set role = 'admin' where username = ${staff.username}`;
      const [row] = await sql<{ id: string }[]>`select id from users where username = ${customer.username}`;
      customerId = row?.id ?? "";
    } finally {
      await sql.end({ timeout: 5 });
    }
    log(
      `  seeding ${CONSOLE_DATA.users.toLocaleString("en")} users and ${(CONSOLE_DATA.spenders * CONSOLE_DATA.spendsPerSpender).toLocaleString("en")} spends…`,
    );
    await seed(database.url, customerId);
    const origin = server.origin;
    // Staff reach /v1/admin only with two factors: the token the two-factor setup answers.
    const staffToken = await turnOnTwoFactorOverHttp(origin, staff.accessToken);
    const get = async (path: string) => {
      const res = await fetch(`${origin}${path}`, {
        headers: { Authorization: `Bearer ${staffToken}` },
      });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    const search: LatencyFigures[] = [];
    for (const [label, q] of [
      ["search: e-mail prefix", "member12"],
      ["search: username prefix", "MEMBER9999"],
      ["search: API key start", "gpk_0a1"],
      ["search: invoice number", "INV-2026-012345"],
      ["search: all, newest first", ""],
    ] as const) {
      search.push(await timed(label, samples, () => get(`/v1/admin/customers?q=${encodeURIComponent(q)}`)));
      log(`  ${label}: p99 ${search.at(-1)?.p99.toFixed(1)} ms`);
    }
    const base = `/v1/admin/customers/${customerId}`;
    const customerPage = await timed("customer page (5 calls at once)", samples, async () => {
      await Promise.all([
        get(base),
        get(`${base}/ledger`),
        get(`${base}/payments`),
        get(`${base}/usage?group_by=day,feature`),
        get(`${base}/audit`),
      ]);
    });
    log(`  customer page: p99 ${customerPage.p99.toFixed(1)} ms`);
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    const metrics90 = await timed("metrics, 90 days", Math.min(samples, 100), () =>
      get(`/v1/admin/metrics?from=${from}&to=${to}`),
    );
    log(`  metrics 90 days: p99 ${metrics90.p99.toFixed(1)} ms`);
    const auditAppendMs = await measureAuditAppend(database.url, samples);
    log(`  audit append: +${auditAppendMs.toFixed(2)} ms per action (median)`);
    return {
      users: CONSOLE_DATA.users,
      spends: CONSOLE_DATA.spenders * CONSOLE_DATA.spendsPerSpender,
      search,
      customerPage,
      metrics90,
      auditAppendMs,
    };
  } finally {
    await server?.stop();
    await database.drop();
  }
}

/** The console's figures as a section of docs/benchmarks.md. */
export function consoleMarkdown(f: ConsoleFigures): string {
  const row = (l: LatencyFigures) =>
    `| ${l.label} | ${l.samples} | ${l.p50.toFixed(1)} ms | ${l.p99.toFixed(1)} ms |`;
  return [
    "",
    "## Operator console (PostgreSQL)",
    "",
    `${f.users.toLocaleString("en")} users, ${f.spends.toLocaleString("en")} spends (1,000 customers over 90 days, with their daily sums), 20,000 invoices, written straight into a fresh database. One client, one call at a time, after five warm-up calls: the latency a staff member's click sees. Reproduce: \`npm run bench -- --only=console\`.`,
    "",
    "| call | samples | p50 | p99 |",
    "| --- | --- | --- | --- |",
    ...f.search.map(row),
    row(f.customerPage),
    row(f.metrics90),
    "",
    `An audit entry (the chain's advisory lock, the last row's read, the insert) adds ${f.auditAppendMs.toFixed(2)} ms to an action's transaction (median of 200 each, with and without).`,
    "",
  ].join("\n");
}
