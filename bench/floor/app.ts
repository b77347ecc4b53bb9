// The floor of the generation service's two calls (issue 35): a bare Hono app on @hono/node-server
// with postgres.js and no Drizzle, no middleware, no request log, doing the least correct work of
// POST /v1/introspect and POST /v1/credits/consume against the benchmark's own database (the same
// schema, seed and keys). `npm run bench` starts it as its own process (`node bench/floor/app.ts`,
// FLOOR_DATABASE_URL and FLOOR_PORT set) and measures it round by round beside the project's calls:
// each call is judged as a share of its floor.
//
// The SQL is the project's (server/billing/spends.ts, server/api-access/api-keys.ts), minus what
// only other features need; the rules are the project's pure functions (server/domain/ledger.ts,
// contract/credit-costs.ts). Consume batches charges as decision 012 does, one batch in the
// database at a time, but in one round trip a batch: the next batch's BEGIN and reads go out right
// behind the previous batch's writes and COMMIT, on one connection (the floor the issue measured).
// It answers what the project answers for the benchmark's requests; it is not a second server.
import { hash } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres, { type Sql } from "postgres";
import { FEATURE_IDS, type FeatureId, featureName, priceOf } from "../../contract/credit-costs.ts";
import { berlinDay, berlinMonth } from "../../server/domain/berlin-time.ts";
import {
  applySpend,
  balance,
  type CreditGrant,
  fromMillicredits,
  planSpend,
  type SpendTake,
} from "../../server/domain/ledger.ts";

/** The environment the benchmark starts the floor with. */
export const FLOOR_ENV = { databaseUrl: "FLOOR_DATABASE_URL", port: "FLOOR_PORT" } as const;

/** The project's pool size (server/db/client.ts) and batch size (server/billing/spends.ts). */
const POOL_SIZE = 10;
const MAX_BATCH = 64;
/** How long a checked service key is trusted (server/api-access/service-keys.ts). */
const SERVICE_KEY_CACHE_MS = 1000;

// A key's text: prefix, 12 characters of id, 43 of secret, 6 of checksum (server/api-access/key-format.ts).
const KEY_LENGTH = 4 + 12 + 43 + 6;
const keyIdOf = (text: string, prefix: "gpk_" | "gsk_") =>
  text.length === KEY_LENGTH && text.startsWith(prefix) ? text.slice(4, 16) : undefined;
const sha256 = (text: string) => hash("sha256", text, "hex");

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
const problem = (status: number, detail: string) => json({ detail }, status);

// ---- the service key: one prepared read, remembered for a second ----

function serviceKeys(sql: Sql) {
  const checked = new Map<string, { scopes: string[]; until: number }>();
  return async (authorization: string | undefined): Promise<string[] | undefined> => {
    const text = authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
    if (!text) return undefined;
    const known = checked.get(text);
    if (known && known.until > Date.now()) return known.scopes;
    const id = keyIdOf(text, "gsk_");
    if (!id) return undefined;
    const [row] = await sql.unsafe<{ secret_hash: string; scopes: string[] }[]>(
      "select secret_hash, scopes from service_keys where id = $1 and revoked_at is null",
      [id],
      { prepare: true },
    );
    if (!row || row.secret_hash !== sha256(text)) return undefined;
    checked.set(text, { scopes: row.scopes, until: Date.now() + SERVICE_KEY_CACHE_MS });
    return row.scopes;
  };
}

// ---- introspect: one prepared read of the key with its holder ----

/**
 * The project's api_key_with_holder read, narrowed to the columns the answer uses, with the
 * balance summed in the statement (one row, not one per grant) and the live subscription's product.
 */
const INTROSPECT = `
  select k.secret_hash, k.revoked_at, k.expires_at, k.shared, k.monthly_credit_limit, k.features,
         o.id as org_id, o.name as org_name, o.disabled_at as org_disabled_at, o.deleted_at as org_deleted_at,
         u.id as creator_id, u.username, u.disabled_at as creator_disabled_at,
         m.user_id as member_user_id, m.monthly_credit_cap, mu.amount as member_used, ku.amount as used,
         (select coalesce(sum(g.remaining), 0) from credit_grants g
           where g.user_id = k.user_id and g.granted_at <= $3 and (g.expires_at is null or g.expires_at > $3)) as balance,
         (select s.product_id from subscriptions s
           where s.user_id = k.user_id and s.status in ('active', 'past_due') limit 1) as product_id
    from api_keys k
    join organizations o on o.id = k.user_id
    left join users u on u.id = coalesce(k.created_by, k.user_id)
    left join organization_members m on m.org_id = k.user_id and m.user_id = coalesce(k.created_by, k.user_id)
    left join member_credit_usage mu
      on mu.org_id = k.user_id and mu.user_id = coalesce(k.created_by, k.user_id) and mu.month = $2::date
    left join api_key_usage ku on ku.api_key_id = k.id and ku.month = $2::date
   where k.id = $1`;

interface IntrospectRow {
  secret_hash: string;
  revoked_at: Date | null;
  expires_at: Date | null;
  shared: boolean;
  monthly_credit_limit: string | null;
  features: string[] | null;
  org_id: string;
  org_name: string | null;
  org_disabled_at: Date | null;
  org_deleted_at: Date | null;
  creator_id: string | null;
  username: string | null;
  creator_disabled_at: Date | null;
  member_user_id: string | null;
  monthly_credit_cap: string | null;
  member_used: string | null;
  used: string | null;
  balance: string;
  product_id: string | null;
}

const INACTIVE = { active: false };
const credits = (milli: string | number | null) => fromMillicredits(Number(milli ?? 0));

async function introspect(sql: Sql, token: string, now: Date): Promise<object> {
  const id = keyIdOf(token, "gpk_");
  if (!id) return INACTIVE;
  const [k] = await sql.unsafe<IntrospectRow[]>(INTROSPECT, [id, berlinMonth(now), now], { prepare: true });
  if (!k || k.secret_hash !== sha256(token) || k.revoked_at !== null) return INACTIVE;
  if (k.expires_at !== null && k.expires_at.getTime() <= now.getTime()) return INACTIVE;
  if (k.org_disabled_at !== null || k.org_deleted_at !== null || k.creator_id === null) return INACTIVE;
  if (!k.shared && (k.creator_disabled_at !== null || k.member_user_id === null)) return INACTIVE;
  const capped = !k.shared && k.monthly_credit_cap !== null;
  return {
    active: true,
    token_type: "api_key",
    sub: k.org_id,
    username: (k.shared ? k.org_name : k.username) ?? "",
    role: "user",
    // The tier's key and limits come from the catalogue in the project; the benchmark's keys are FREE.
    plan: k.product_id ?? "FREE",
    limits: { concurrent_requests: 1 },
    credit_balance: credits(k.balance),
    org_id: k.org_id,
    member_id: k.shared ? null : k.creator_id,
    member_monthly_credit_cap: capped ? credits(k.monthly_credit_cap) : null,
    member_credits_used_this_month: capped ? credits(k.member_used) : null,
    key_id: id,
    ...(k.expires_at ? { exp: Math.floor(k.expires_at.getTime() / 1000) } : {}),
    monthly_credit_limit: k.monthly_credit_limit === null ? null : credits(k.monthly_credit_limit),
    credits_used_this_month: credits(k.used),
    features: k.features ?? [...FEATURE_IDS],
  };
}

// ---- consume: the project's batched transaction, one round trip a batch ----

/** The project's batch reads (server/billing/spends.ts), without what alerts and auto top-up need. */
const BATCH_OF = `array(select unnest($1::text[]::uuid[]) union select user_id from api_keys where id = any($2::text[]))`;
const READS = {
  lock: `select o.id, o.personal, o.disabled_at, o.deleted_at, o.dispute_hold_at, u.disabled_at as user_disabled_at
           from organizations o left join users u on u.id = o.id
          where o.id = any(${BATCH_OF}) order by o.id for no key update of o`,
  keys: `select k.id, k.user_id, k.created_by, k.shared, k.monthly_credit_limit, k.features, k.expires_at, k.revoked_at,
                u.disabled_at as creator_disabled_at, m.monthly_credit_cap, m.user_id as member_user_id
           from api_keys k
           left join users u on u.id = coalesce(k.created_by, k.user_id)
           left join organization_members m on m.org_id = k.user_id and m.user_id = coalesce(k.created_by, k.user_id)
          where k.id = any($1::text[])`,
  earlier: `select id, user_id, idempotency_key, amount, balance_after, api_key_id, feature, people, quantity
              from credit_spends where idempotency_key = any($1::text[])`,
  grants: `select id, kind, amount, remaining, granted_at, expires_at, source, user_id from credit_grants
            where user_id = any(${BATCH_OF}) order by granted_at desc, created_at desc`,
  keyUsage: `select api_key_id, month::text as month, amount from api_key_usage
              where api_key_id = any($1::text[]) and month = any($2::text[]::date[])`,
  memberUsage: `select mu.org_id, mu.user_id, mu.month::text as month, mu.amount
                  from member_credit_usage mu
                  join api_keys k on k.user_id = mu.org_id and coalesce(k.created_by, k.user_id) = mu.user_id
                 where k.id = any($1::text[]) and mu.month = any($2::text[]::date[])`,
} as const;

/** The project's write_batch: grants, spends, daily usage, key and member usage in one statement. */
const WRITE = `with taken_from_grants as (
    update credit_grants set remaining = credit_grants.remaining - taken.amount
      from unnest($1::text[]::uuid[], $2::text[]::bigint[]) as taken(id, amount) where credit_grants.id = taken.id
  ), spends as (
    insert into credit_spends select * from jsonb_populate_recordset(null::credit_spends, $3::text::jsonb)
  ), daily as (
    insert into usage_daily select * from jsonb_populate_recordset(null::usage_daily, $4::text::jsonb)
    on conflict (user_id, day, feature, api_key_id)
    do update set uses = usage_daily.uses + excluded.uses, credits = usage_daily.credits + excluded.credits
  ), key_usage as (
    insert into api_key_usage select * from jsonb_populate_recordset(null::api_key_usage, $5::text::jsonb)
    on conflict (api_key_id, month) do update set amount = api_key_usage.amount + excluded.amount
  ), member_usage as (
    insert into member_credit_usage select * from jsonb_populate_recordset(null::member_credit_usage, $6::text::jsonb)
    on conflict (org_id, user_id, month) do update set amount = member_credit_usage.amount + excluded.amount
  )
  select 1`;

/** A charge as consume's feature form asks for it, through an API key. */
export interface FloorCharge {
  apiKeyId: string;
  feature: FeatureId;
  people: "one" | "multiple";
  quantity: number;
  idempotencyKey: string;
  now: Date;
}

/** The status and body consume answers. */
export interface FloorAnswer {
  status: number;
  body: object;
  replayed?: boolean;
}

type Row = Record<string, unknown>;
const NO_KEY: FloorAnswer = { status: 404, body: { detail: "API key not found" } };
const refused = (detail: string, status = 402): FloorAnswer => ({ status, body: { detail } });
const pair = (a: string, b: string) => `${a}\u0000${b}`;
const num = (v: unknown) => Number(v ?? 0);

/**
 * The batch's decisions in arrival order, from what its reads answered, as the project's spends.ts
 * decides them (the key usable and allowed the feature, the organisation active and not on hold, a
 * repeat answered as the first, the key's limit and the member's cap, the grants taken in spending
 * order), and the write's parameters; no write when nothing was spent.
 */
export function decideBatch(
  charges: readonly FloorCharge[],
  [locked, keyRows, earlierRows, grantRows, usageRows, memberRows]: readonly Row[][],
): { answers: FloorAnswer[]; write: unknown[] | undefined } {
  const orgs = new Map((locked ?? []).map((o) => [o.id as string, o]));
  const keys = new Map((keyRows ?? []).map((k) => [k.id as string, k]));
  const grants = new Map<string, CreditGrant[]>();
  for (const g of grantRows ?? []) {
    const list = grants.get(g.user_id as string) ?? [];
    list.push({
      id: g.id as string,
      kind: g.kind as CreditGrant["kind"],
      amount: num(g.amount),
      remaining: num(g.remaining),
      grantedAt: g.granted_at as Date,
      expiresAt: (g.expires_at as Date | null) ?? null,
      source: g.source as string,
    });
    grants.set(g.user_id as string, list);
  }
  const earlier = new Map<string, FloorAnswer>(
    (earlierRows ?? []).map((e) => [
      pair(e.user_id as string, e.idempotency_key as string),
      {
        status: 200,
        replayed: true,
        body: {
          credit_balance: credits(e.balance_after as string),
          charged: credits(e.amount as string),
          ledger_entry_id: e.id,
          replayed: true,
        },
      },
    ]),
  );
  const usage = new Map(
    (usageRows ?? []).map((u) => [pair(u.api_key_id as string, u.month as string), num(u.amount)]),
  );
  const memberUsage = new Map(
    (memberRows ?? []).map((u) => [
      `${u.org_id}\u0000${pair(u.user_id as string, u.month as string)}`,
      num(u.amount),
    ]),
  );
  const answers: FloorAnswer[] = [];
  const spends: Row[] = [];
  const taken = new Map<string, number>();
  const daily = new Map<string, Row>();
  const keyUsage = new Map<string, Row>();
  const membersUsage = new Map<string, Row>();
  for (const charge of charges) {
    const key = keys.get(charge.apiKeyId);
    const expires = key?.expires_at as Date | null | undefined;
    if (!key || key.revoked_at !== null || (expires && expires.getTime() <= charge.now.getTime())) {
      answers.push(NO_KEY);
      continue;
    }
    const features = key.features as string[] | null;
    if (features && !features.includes(charge.feature)) {
      answers.push(refused("This API key may not be used for this feature", 403));
      continue;
    }
    const orgId = key.user_id as string;
    const org = orgs.get(orgId);
    if (!org) {
      answers.push(NO_KEY);
      continue;
    }
    const repeat = earlier.get(pair(orgId, charge.idempotencyKey));
    if (repeat) {
      answers.push(repeat);
      continue;
    }
    const memberId = key.shared ? null : ((key.created_by as string | null) ?? orgId);
    const creatorActive = key.shared || (key.creator_disabled_at === null && key.member_user_id !== null);
    const orgDisabled =
      org.disabled_at !== null || org.deleted_at !== null || (org.personal && org.user_disabled_at !== null);
    if (orgDisabled || !creatorActive) {
      answers.push(NO_KEY);
      continue;
    }
    if (org.dispute_hold_at !== null) {
      answers.push(refused("A payment is disputed"));
      continue;
    }
    const amount = priceOf(charge.feature, charge.people, charge.quantity);
    const month = berlinMonth(charge.now);
    const usageKey = pair(charge.apiKeyId, month);
    const used = usage.get(usageKey) ?? 0;
    const limit = key.monthly_credit_limit === null ? null : num(key.monthly_credit_limit);
    if (limit !== null && used + amount > limit) {
      answers.push(refused("This API key's monthly credit limit is reached"));
      continue;
    }
    const memberKey = memberId ? `${orgId}\u0000${pair(memberId, month)}` : undefined;
    const memberUsed = memberKey ? (memberUsage.get(memberKey) ?? 0) : 0;
    const cap = key.shared || key.monthly_credit_cap === null ? null : num(key.monthly_credit_cap);
    if (cap !== null && memberUsed + amount > cap) {
      answers.push(refused("The member's monthly credit cap is reached"));
      continue;
    }
    const orgGrants = grants.get(orgId) ?? [];
    const plan = planSpend(orgGrants, amount, charge.now);
    if (!plan.ok) {
      answers.push(refused("Insufficient credits"));
      continue;
    }
    const balanceAfter = balance(orgGrants, charge.now) - amount;
    grants.set(orgId, applySpend(orgGrants, plan.takes));
    usage.set(usageKey, used + amount);
    if (memberKey) memberUsage.set(memberKey, memberUsed + amount);
    const id = crypto.randomUUID();
    spends.push({
      id,
      user_id: orgId,
      amount,
      reason: `${featureName(charge.feature)} × ${charge.quantity} (${charge.people === "one" ? "one person" : "multiple people"})`,
      idempotency_key: charge.idempotencyKey,
      balance_after: balanceAfter,
      takes: plan.takes.map((t: SpendTake) => ({ grantId: t.grantId, amount: t.amount })),
      requested_by: null,
      api_key_id: charge.apiKeyId,
      feature: charge.feature,
      people: charge.people,
      quantity: charge.quantity,
      created_at: charge.now,
    });
    for (const t of plan.takes) taken.set(t.grantId, (taken.get(t.grantId) ?? 0) + t.amount);
    const day = berlinDay(charge.now);
    const dayKey = [orgId, day, charge.feature, charge.apiKeyId].join("\u0000");
    const sums = daily.get(dayKey) ?? {
      user_id: orgId,
      day,
      feature: charge.feature,
      api_key_id: charge.apiKeyId,
      uses: 0,
      credits: 0,
    };
    sums.uses = num(sums.uses) + charge.quantity;
    sums.credits = num(sums.credits) + amount;
    daily.set(dayKey, sums);
    const k = keyUsage.get(usageKey) ?? { api_key_id: charge.apiKeyId, month, amount: 0, reserved: 0 };
    k.amount = num(k.amount) + amount;
    keyUsage.set(usageKey, k);
    if (memberId && memberKey) {
      const m = membersUsage.get(memberKey) ?? {
        org_id: orgId,
        user_id: memberId,
        month,
        amount: 0,
        reserved: 0,
      };
      m.amount = num(m.amount) + amount;
      membersUsage.set(memberKey, m);
    }
    const answer: FloorAnswer = {
      status: 200,
      body: {
        credit_balance: fromMillicredits(balanceAfter),
        charged: fromMillicredits(amount),
        ledger_entry_id: id,
        replayed: false,
      },
    };
    earlier.set(pair(orgId, charge.idempotencyKey), {
      ...answer,
      replayed: true,
      body: { ...answer.body, replayed: true },
    });
    answers.push(answer);
  }
  const write =
    spends.length === 0
      ? undefined
      : [
          [...taken.keys()],
          [...taken.values()].map(String),
          JSON.stringify(spends),
          JSON.stringify([...daily.values()]),
          JSON.stringify([...keyUsage.values()]),
          JSON.stringify([...membersUsage.values()]),
        ];
  return { answers, write };
}

interface Pending {
  charge: FloorCharge;
  resolve: (answer: FloorAnswer) => void;
  reject: (error: unknown) => void;
}

/** Project's plan guard (server/db/two-trip-transaction.ts): prepared plans never scan a table. */
const BEGIN = "begin; set local enable_seqscan = off";

/**
 * Charges in batches on one connection: a batch's BEGIN and reads in one trip; once they answer,
 * its write and COMMIT go out together with the next batch's BEGIN and reads (whatever queued in
 * the meantime), so each batch costs one round trip while batches keep coming.
 */
function batchedCharges(connection: Sql) {
  const queue: Pending[] = [];
  let running = false;

  const sendReads = (batch: readonly Pending[]) => {
    const charges = batch.map((p) => p.charge);
    const keyIds = [...new Set(charges.map((c) => c.apiKeyId))];
    const months = [...new Set(charges.map((c) => berlinMonth(c.now)))];
    const idempotencyKeys = [...new Set(charges.map((c) => c.idempotencyKey))];
    const run = (text: string, params: unknown[]) =>
      connection.unsafe<Row[]>(text, params as never[], { prepare: true }).execute();
    const begin = connection.unsafe(BEGIN).execute();
    const reads = [
      run(READS.lock, [[], keyIds]),
      run(READS.keys, [keyIds]),
      run(READS.earlier, [idempotencyKeys]),
      run(READS.grants, [[], keyIds]),
      run(READS.keyUsage, [keyIds, months]),
      run(READS.memberUsage, [keyIds, months]),
    ];
    return Promise.all([begin, ...reads]).then(([, ...answers]) => answers as Row[][]);
  };

  const sendWrites = (write: unknown[] | undefined) =>
    Promise.all([
      ...(write ? [connection.unsafe(WRITE, write as never[], { prepare: true }).execute()] : []),
      connection.unsafe("commit").execute(),
    ]);

  async function drain(): Promise<void> {
    let batch = queue.splice(0, MAX_BATCH);
    let reads = sendReads(batch);
    while (batch.length > 0) {
      let decided: ReturnType<typeof decideBatch>;
      try {
        decided = decideBatch(
          batch.map((p) => p.charge),
          await reads,
        );
      } catch (error) {
        await connection.unsafe("rollback").catch(() => {});
        for (const p of batch) p.reject(error);
        batch = queue.splice(0, MAX_BATCH);
        if (batch.length > 0) reads = sendReads(batch);
        continue;
      }
      const written = sendWrites(decided.write);
      const next = queue.splice(0, MAX_BATCH);
      const nextReads = next.length > 0 ? sendReads(next) : undefined;
      // Nothing handled: a failed read of the next batch is its own callers' (awaited in the loop).
      nextReads?.catch(() => {});
      try {
        await written;
        batch.forEach((p, i) => {
          p.resolve(decided.answers[i] as FloorAnswer);
        });
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
      batch = next;
      if (nextReads) reads = nextReads;
      else if (queue.length > 0) {
        batch = queue.splice(0, MAX_BATCH);
        reads = sendReads(batch);
      }
    }
    running = false;
  }

  return (charge: FloorCharge) =>
    new Promise<FloorAnswer>((resolve, reject) => {
      queue.push({ charge, resolve, reject });
      if (running) return;
      running = true;
      // As the project's batched.ts: the requests of the same event-loop turn join the first batch.
      setImmediate(() => void drain());
    });
}

// ---- the app ----

/** The floor's routes on `sql` (its pool) and `connection` (one reserved for the charges). */
export function floorApp(sql: Sql, connection: Sql): Hono {
  const checkService = serviceKeys(sql);
  const charge = batchedCharges(connection);
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.post("/v1/introspect", async (c) => {
    const scopes = await checkService(c.req.header("authorization"));
    if (!scopes) return problem(401, "Invalid service key");
    if (!scopes.includes("introspect")) return problem(403, "Not enough permissions");
    const token = new URLSearchParams(await c.req.text()).get("token");
    return json(token ? await introspect(sql, token, new Date()) : INACTIVE);
  });
  app.post("/v1/credits/consume", async (c) => {
    const scopes = await checkService(c.req.header("authorization"));
    if (!scopes) return problem(401, "Invalid service key");
    if (!scopes.includes("credits:consume")) return problem(403, "Not enough permissions");
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const feature = body?.feature as FeatureId;
    const people = body?.people;
    const quantity = body?.quantity ?? 1;
    if (
      typeof body?.api_key_id !== "string" ||
      typeof body.idempotency_key !== "string" ||
      !FEATURE_IDS.includes(feature) ||
      (people !== "one" && people !== "multiple") ||
      typeof quantity !== "number" ||
      !Number.isInteger(quantity) ||
      quantity < 1
    )
      return problem(422, "Invalid body");
    const answer = await charge({
      apiKeyId: body.api_key_id,
      feature,
      people,
      quantity,
      idempotencyKey: body.idempotency_key,
      now: new Date(),
    });
    return json(answer.body, answer.status, answer.replayed ? { "Idempotent-Replayed": "true" } : {});
  });
  return app;
}

async function main(): Promise<void> {
  const url = process.env[FLOOR_ENV.databaseUrl];
  const port = Number(process.env[FLOOR_ENV.port]);
  if (!url || !Number.isInteger(port)) throw new Error(`Set ${FLOOR_ENV.databaseUrl} and ${FLOOR_ENV.port}`);
  const sql = postgres(url, {
    max: POOL_SIZE,
    onnotice: () => {},
    connection: { application_name: "bench-floor" },
  });
  const connection = await sql.reserve();
  const server = serve({ fetch: floorApp(sql, connection).fetch, port, hostname: "127.0.0.1" });
  process.once("SIGTERM", () => {
    server.close();
    connection.release();
    void sql.end({ timeout: 2 }).then(() => process.exit(0));
  });
}

if (import.meta.main) await main();
