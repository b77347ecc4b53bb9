// A realistic month of generations for a development account (npm run usage:simulate): a mix of
// features weighted the way an image API is used (many cheap background removals and filters, few
// videos), busier on weekdays, spread over working hours, sized to spend at most a share of the
// balance the account has, so the simulation never runs it dry. A plain function of its inputs and
// a random source, so a test can pin it down.
import { FEATURE_IDS, type FeatureId, type People, priceOf } from "../../contract/credit-costs.ts";

/** How often each feature is used, relative to the others. */
const FEATURE_WEIGHTS: Readonly<Record<FeatureId, number>> = {
  "background-remover": 30,
  "standard-filter": 25,
  multiswap: 10,
  comic: 9,
  "skin-refiner": 10,
  "cloth-swap": 8,
  "image-to-video": 4,
  "custom-creation": 4,
};

export interface SimulatedCharge {
  /** When it happened: a past instant inside the asked days. */
  at: Date;
  feature: FeatureId;
  people: People;
  quantity: number;
  /** One of the account's keys, or undefined for a charge by user (an access token's program). */
  apiKeyId: string | undefined;
  /** Milli-credits it costs. */
  price: number;
}

export interface SimulationInput {
  days: number;
  now: Date;
  /** The first instant a charge may have (the start of the oldest asked day in Berlin). */
  since: Date;
  /** Milli-credits the whole simulation may spend. */
  budget: number;
  /** The account's usable API keys; charges are spread over them (and some made without a key). */
  apiKeyIds: readonly string[];
  /** A number in [0, 1), like Math.random. */
  random: () => number;
}

const DAY_MS = 86_400_000;
/** Generations on a weekday at most; weekends see a third of that. */
const BUSIEST_DAY = 40;

function pick<T>(items: readonly (readonly [T, number])[], random: () => number): T {
  const total = items.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [item, weight] of items) {
    roll -= weight;
    if (roll < 0) return item;
  }
  return (items.at(-1) as readonly [T, number])[0];
}

const FEATURES = FEATURE_IDS.map((id) => [id, FEATURE_WEIGHTS[id]] as const);

/** Mean uses in one charge: mostly one, sometimes a batch of 2 to 5. */
const MEAN_QUANTITY = 0.85 + 0.15 * 3.5;
const ONE_PERSON_SHARE = 0.7;

/** What one charge costs on average, in milli-credits, with the weights above. */
function meanPrice(): number {
  const weights = FEATURES.reduce((sum, [, weight]) => sum + weight, 0);
  const perUse = FEATURES.reduce(
    (sum, [id, weight]) =>
      sum +
      weight *
        (ONE_PERSON_SHARE * priceOf(id, "one", 1) + (1 - ONE_PERSON_SHARE) * priceOf(id, "multiple", 1)),
    0,
  );
  return (perUse / weights) * MEAN_QUANTITY;
}

/** Share of the budget the simulation aims to spend: it leaves the account some credits. */
const BUDGET_SHARE = 0.8;

/**
 * The charges, oldest first; their prices add up to at most `budget`. The day's volume shrinks
 * with a small budget, so every day gets its share rather than the first days taking it all.
 */
export function simulationPlan(input: SimulationInput): SimulatedCharge[] {
  const { random, now } = input;
  const charges: SimulatedCharge[] = [];
  let spent = 0;
  const meanDay = 0.7 * ((5 / 7) * BUSIEST_DAY + (2 / 7) * (BUSIEST_DAY / 3));
  const scale = Math.min(1, (BUDGET_SHARE * input.budget) / (meanPrice() * meanDay * input.days));
  // Newest day first: should the budget run short, the days left empty are the oldest, and the
  // recent days that the portal shows first keep their charges.
  for (let back = 0; back < input.days; back++) {
    const dayStart = now.getTime() - (back + 1) * DAY_MS;
    const weekday = new Date(dayStart + DAY_MS / 2).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const count = Math.round((0.4 + 0.6 * random()) * (weekend ? BUSIEST_DAY / 3 : BUSIEST_DAY) * scale);
    const times = Array.from({ length: count }, () => dayStart + Math.floor(random() * DAY_MS)).sort(
      (a, b) => a - b,
    );
    for (const time of times) {
      if (time < input.since.getTime()) continue;
      const feature = pick(FEATURES, random);
      const people: People = random() < ONE_PERSON_SHARE ? "one" : "multiple";
      const quantity = random() < 0.85 ? 1 : 2 + Math.floor(random() * 4);
      const price = priceOf(feature, people, quantity);
      // A charge the budget cannot pay is left out; a cheaper one later may still fit.
      if (spent + price > input.budget) continue;
      spent += price;
      const keys = input.apiKeyIds;
      const apiKeyId =
        keys.length > 0 && random() < 0.9 ? keys[Math.floor(random() * keys.length)] : undefined;
      charges.push({
        at: new Date(Math.min(time, now.getTime() - 1000)),
        feature,
        people,
        quantity,
        apiKeyId,
        price,
      });
    }
  }
  return charges.sort((a, b) => a.at.getTime() - b.at.getTime());
}
