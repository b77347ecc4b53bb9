// Auto top-up's benchmarks (AUTO-TOP-UP.md, "Budgets"). Its customers are made over HTTP as the
// contract's flow makes them, on either database: a plan paid on the local checkout, the test card
// 4242 saved on its card-setup page (saved from the provider's event: waited for), auto top-up
// turned on with the consent text for exactly its values. Measured here: the time from a spend that
// crosses the threshold to the pack's credits; consume with auto top-up on is a route of api.ts.
import { PRODUCT_IDS } from "../contract/product-ids.ts";
import { ORG_HEADER } from "../server/orgs/membership.ts";
import { call, type SeededUser } from "./server.ts";
import { max, median, percentile } from "./stats.ts";

/** The plan the customers pay for: tier A (1,000 credits a month), the cheapest paid plan. */
const PLAN = PRODUCT_IDS.test.tiers.A;
/** The pack auto top-up buys: 500 credits. */
const PACK = PRODUCT_IDS.test.topUps["500"].product;
export const PACK_CREDITS = 500;
/** Gross cents a month: €1,000, far above what a run charges (at most 10 packs a day per organisation). */
const MONTHLY_LIMIT = 100_000;
/**
 * Crossings per organisation: auto top-up allows 10 charges per organisation in a Berlin day (the
 * next one pauses it), and each run makes its own organisations.
 */
const CROSSINGS_PER_ORG = 8;
/**
 * The threshold of the customers whose consume is measured with auto top-up on: far below their
 * balance (the benchmark server's 1,000,000 free credits), so the spend path reads the settings on
 * every charge but nothing is ever charged (a top-up during the load would be another workload).
 */
export const CONSUME_THRESHOLD = 100;
/** The crossing organisations' threshold: one pack (500) lifts a balance just below it well above. */
export const CROSSING_THRESHOLD = 400;
/** Image-to-video for one person: 10 credits a use (contract/credit-costs.ts); a crossing buys `quantity` of them. */
const CROSSING_FEATURE = { feature: "image-to-video", people: "one", credits: 10 } as const;
/** How long one crossing may take before it counts as a miss (its time is then this). */
const CROSSING_TIMEOUT_MS = 30_000;
const POLL_MS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const headersOf = (token: string, orgId?: string): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
  "Content-Type": "application/json",
  ...(orgId ? { [ORG_HEADER]: orgId } : {}),
});

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

interface Me {
  credit_balance: number;
  subscription?: { status: string } | null;
}

const me = (origin: string, token: string, orgId?: string) =>
  call(`${origin}/v1/users/me`, { headers: headersOf(token, orgId) }) as Promise<Me>;

/** A form post as the local checkout's pages take it; answers the redirect's status. */
async function postForm(url: string, form: Record<string, string>): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

/** Tier A paid on the local checkout (details as a consumer in Germany, then the card 4242). */
async function payForPlan(origin: string, token: string, orgId?: string): Promise<void> {
  const { url } = (await call(`${origin}/v1/create-checkout-session`, {
    method: "POST",
    headers: headersOf(token, orgId),
    body: JSON.stringify({ product: PLAN.product, price: PLAN.price }),
  })) as { url: string };
  const page = `${origin}${new URL(url).pathname}`;
  const details = await postForm(`${page}/details`, { name: "Erika Mustermann", country: "DE", vat_id: "" });
  const paid = await postForm(page, { card_number: "4242 4242 4242 4242" });
  if (details !== 303 || paid !== 303) throw new Error(`The checkout answered ${details}, then ${paid}`);
  await waitUntil(
    "the plan's payment to be granted",
    async () => (await me(origin, token, orgId)).subscription?.status === "active",
  );
}

/** The card 4242 saved on the card-setup page; waits until billing saved it from the provider's event. */
async function saveCard(origin: string, token: string, orgId?: string): Promise<void> {
  const { url } = (await call(`${origin}/v1/billing/payment-method/setup`, {
    method: "POST",
    headers: headersOf(token, orgId),
  })) as { url: string };
  const saved = await postForm(`${origin}${new URL(url).pathname}`, { card_number: "4242 4242 4242 4242" });
  if (saved !== 303) throw new Error(`The card-setup page answered ${saved}`);
  await waitUntil("the card to be saved", async () => {
    const state = (await call(`${origin}/v1/billing/auto-top-up`, { headers: headersOf(token, orgId) })) as {
      card: unknown;
    };
    return state.card !== null;
  });
}

/** Auto top-up on with the 500 pack below `threshold`, with the consent text for exactly these values. */
async function turnOn(origin: string, token: string, threshold: number, orgId?: string): Promise<void> {
  const values = {
    threshold,
    product_id: PACK,
    monthly_limit: { amount: MONTHLY_LIMIT, currency: "eur" },
  };
  const { text_version } = (await call(`${origin}/v1/billing/auto-top-up/consent-text`, {
    method: "POST",
    headers: headersOf(token, orgId),
    body: JSON.stringify(values),
  })) as { text_version: string };
  const state = (await call(`${origin}/v1/billing/auto-top-up`, {
    method: "PUT",
    headers: headersOf(token, orgId),
    body: JSON.stringify({ enabled: true, ...values, consent: { text_version, accepted: true } }),
  })) as { status: string };
  if (state.status !== "active")
    throw new Error(`Auto top-up is ${JSON.stringify(state)} after turning it on`);
}

/** A plan, a saved card and auto top-up on (the user's personal organisation, or `orgId`). */
export async function setUpAutoTopUp(
  origin: string,
  user: SeededUser,
  threshold: number,
  orgId?: string,
): Promise<void> {
  await payForPlan(origin, user.accessToken, orgId);
  await saveCard(origin, user.accessToken, orgId);
  await turnOn(origin, user.accessToken, threshold, orgId);
}

/** Team organisations whose balance crosses the threshold (they start with the plan's credits only). */
export interface CrossingOrg {
  orgId: string;
  /** The owner's access token: GET /v1/users/me with X-Organization reads the balance. */
  accessToken: string;
  /** An API key of the organisation's: the spends that cross. */
  keyId: string;
}

/** Organisations enough for `crossings` under the daily limit. */
export const crossingOrgsFor = (crossings: number) => Math.ceil(crossings / CROSSINGS_PER_ORG);

/**
 * `count` team organisations of `owner`, each with tier A (1,000 credits and no free ones), the card,
 * auto top-up on below 400 credits, and an API key made with X-Organization.
 */
export async function seedCrossingOrgs(
  origin: string,
  owner: SeededUser,
  count: number,
): Promise<CrossingOrg[]> {
  const orgs: CrossingOrg[] = [];
  for (let i = 0; i < count; i++) {
    const org = (await call(`${origin}/v1/orgs`, {
      method: "POST",
      headers: headersOf(owner.accessToken),
      body: JSON.stringify({ name: `Auto top-up ${i + 1}` }),
    })) as { id: string };
    await setUpAutoTopUp(origin, owner, CROSSING_THRESHOLD, org.id);
    const key = (await call(`${origin}/v1/api-keys`, {
      method: "POST",
      headers: headersOf(owner.accessToken, org.id),
      body: JSON.stringify({ name: "auto top-up benchmark" }),
    })) as { id: string };
    orgs.push({ orgId: org.id, accessToken: owner.accessToken, keyId: key.id });
  }
  return orgs;
}

export interface TopUpLatencyFigures {
  crossings: number;
  /** Team organisations the crossings went round, and their threshold. */
  organisations: number;
  threshold: number;
  /** Milliseconds from sending the spend that crossed to GET /v1/users/me showing the pack's credits. */
  timesMs: number[];
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Crossings whose credits did not come within 30 s (counted as 30 s). */
  missed: number;
}

export function latencyFigures(
  timesMs: readonly number[],
  organisations: number,
  missed = 0,
): TopUpLatencyFigures {
  return {
    crossings: timesMs.length,
    organisations,
    threshold: CROSSING_THRESHOLD,
    timesMs: [...timesMs],
    p50Ms: median(timesMs),
    p95Ms: percentile(timesMs, 95),
    maxMs: max(timesMs),
    missed,
  };
}

/**
 * `crossings` spends that each take an organisation's balance just below its threshold, one at a
 * time, the organisations in turn: each timed from sending the spend until GET /v1/users/me (polled
 * every 10 ms) shows the balance up by a pack. The charge runs in the background after the spend's
 * answer, and its own answer grants the pack; the invoice.paid event would be a second path, delivered
 * by the billing job (BILLING_JOB_INTERVAL_SECONDS, 30 s by default) or at once after a checkout.
 */
export async function measureTopUpLatency(
  origin: string,
  serviceKey: string,
  orgs: readonly CrossingOrg[],
  crossings: number,
  log: (line: string) => void = () => {},
): Promise<TopUpLatencyFigures> {
  if (orgs.length * CROSSINGS_PER_ORG < crossings)
    throw new Error(`${crossings} crossings need ${crossingOrgsFor(crossings)} organisations`);
  const timesMs: number[] = [];
  let missed = 0;
  for (let i = 0; i < crossings; i++) {
    const org = orgs[i % orgs.length] as CrossingOrg;
    const before = (await me(origin, org.accessToken, org.orgId)).credit_balance;
    const quantity = Math.ceil((before - CROSSING_THRESHOLD + 1) / CROSSING_FEATURE.credits);
    const after = before - quantity * CROSSING_FEATURE.credits;
    const start = performance.now();
    const spent = (await call(`${origin}/v1/credits/consume`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${serviceKey}` },
      body: JSON.stringify({
        api_key_id: org.keyId,
        feature: CROSSING_FEATURE.feature,
        people: CROSSING_FEATURE.people,
        quantity,
        idempotency_key: `cross-${process.pid}-${org.orgId}-${i}`,
      }),
    })) as { credit_balance: number };
    if (spent.credit_balance !== after || after >= CROSSING_THRESHOLD)
      throw new Error(`A crossing spend left ${spent.credit_balance} credits, expected ${after}`);
    let elapsed = 0;
    for (;;) {
      const balance = (await me(origin, org.accessToken, org.orgId)).credit_balance;
      elapsed = performance.now() - start;
      if (balance >= after + PACK_CREDITS) break;
      if (elapsed > CROSSING_TIMEOUT_MS) {
        missed += 1;
        elapsed = CROSSING_TIMEOUT_MS;
        break;
      }
      await sleep(POLL_MS);
    }
    timesMs.push(elapsed);
  }
  const figures = latencyFigures(timesMs, Math.min(orgs.length, crossings), missed);
  log(
    `  auto top-up, ${crossings} crossings: spend to credits p50 ${Math.round(figures.p50Ms)} ms, ` +
      `p95 ${Math.round(figures.p95Ms)} ms, max ${Math.round(figures.maxMs)} ms` +
      (missed > 0 ? ` (${missed} not within ${CROSSING_TIMEOUT_MS / 1000} s)` : ""),
  );
  return figures;
}
