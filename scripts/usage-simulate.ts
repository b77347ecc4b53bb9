// `npm run usage:simulate -- --username <u> [--days 30] [--port 4321]`: gives a development
// account a realistic history of generations over the last days, so /profile/usage has something to
// show on a bare machine. It charges through the running server's POST /v1/credits/consume, the call
// the generation service makes, with a service key made for the run (and revoked after it) and each
// charge's back-dated time in `at`, which only a development server accepts. It spends at most part
// of the account's balance (server/usage/simulation.ts) and never grants credits.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { berlinMidnightDaysAgo } from "../server/domain/berlin-time.ts";
import type { UserInfo } from "../server/operator/commands.ts";
import { serverRunningHere } from "../server/operator/running-servers.ts";
import { type SimulatedCharge, simulationPlan } from "../server/usage/simulation.ts";
import { operatorCommand } from "./operator.ts";

const USAGE = "Usage: npm run usage:simulate -- --username <username> [--days 30] [--port 4321]";
/** Charges in flight at once: enough to be quick, few enough to look like one service. */
const CONCURRENCY = 4;

/** Runs an operator command (through the server's socket) and returns its lines, or throws its message. */
async function operator(command: "user-info" | "service-key", args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await operatorCommand(
    { command, args },
    process.env,
    (l) => lines.push(l),
    (l) => errors.push(l),
  );
  if (code !== 0) throw new Error(errors.join("\n"));
  return lines;
}

async function main(): Promise<number> {
  const running = serverRunningHere(process.cwd());
  const { values } = parseArgs({
    options: {
      username: { type: "string" },
      days: { type: "string", default: "30" },
      // As billing:advance: PORT, else the one server running from this folder, else 4321.
      port: { type: "string", default: process.env.PORT ?? String(running?.port ?? 4321) },
    },
  });
  const days = Number(values.days);
  if (!values.username || !Number.isInteger(days) || days < 1 || days > 366) {
    console.error(`${USAGE}\n--days is a whole number from 1 to 366.`);
    return 2;
  }
  const origin = `http://127.0.0.1:${values.port}`;
  try {
    await fetch(`${origin}/healthz`);
  } catch {
    console.error(`No server answers at ${origin}: start it first (npm start), or give its --port.`);
    return 1;
  }

  const info = JSON.parse((await operator("user-info", [values.username]))[0] as string) as UserInfo;
  const now = new Date();
  const plan = simulationPlan({
    days,
    now,
    // The asked days as Berlin days, today included: what /profile/usage's periods count.
    since: berlinMidnightDaysAgo(now, days - 1),
    budget: info.balance,
    apiKeyIds: info.apiKeyIds,
    random: Math.random,
  });
  if (plan.length === 0) {
    console.error(`${info.username} has no credits to spend: buy a plan or a top-up pack first.`);
    return 1;
  }

  const created = await operator("service-key", ["create", "usage-simulator", "--scopes", "credits:consume"]);
  const serviceKey = created.join("\n").match(/gsk_[0-9A-Za-z]+/)?.[0];
  const serviceKeyId = created[0]?.match(/^Service key (\S+)/)?.[1];
  if (!serviceKey || !serviceKeyId)
    throw new Error("The service key could not be read from the command's answer.");

  const run = randomBytes(4).toString("hex");
  let charged = 0;
  let generations = 0;
  let credits = 0;
  const failures = new Map<string, number>();
  const charge = async (item: SimulatedCharge, i: number) => {
    const res = await fetch(`${origin}/v1/credits/consume`, {
      method: "POST",
      headers: { Authorization: `Bearer ${serviceKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        ...(item.apiKeyId ? { api_key_id: item.apiKeyId } : { user_id: info.id }),
        feature: item.feature,
        people: item.people,
        quantity: item.quantity,
        idempotency_key: `simulate-${run}-${i}`,
        at: item.at.toISOString(),
      }),
    });
    if (res.ok) {
      charged += 1;
      generations += item.quantity;
      credits += item.price;
      return;
    }
    const detail = JSON.stringify(
      ((await res.json().catch(() => ({}))) as { detail?: unknown }).detail ?? res.status,
    );
    failures.set(detail, (failures.get(detail) ?? 0) + 1);
  };
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < plan.length) {
          const i = next++;
          await charge(plan[i] as SimulatedCharge, i);
        }
      }),
    );
  } finally {
    await operator("service-key", ["revoke", serviceKeyId]);
  }

  console.log(
    // The same count /profile/usage shows: generations (each charge's quantity), not API calls.
    `Charged ${generations} generations in ${charged} charges (${credits / 1000} credits) to ${info.username} over the last ${days} days` +
      `${info.apiKeyIds.length > 0 ? `, with ${info.apiKeyIds.length} API key(s)` : ""}. See ${process.env.PORTAL_URL ?? running?.portalUrl ?? origin}/profile/usage`,
  );
  for (const [detail, count] of failures) console.error(`${count} charges refused: ${detail}`);
  return failures.size > 0 ? 1 : 0;
}

if (import.meta.main) {
  try {
    process.exitCode = await main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
