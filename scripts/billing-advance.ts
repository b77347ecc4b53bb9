// `npm run billing:advance -- --days N [--port P]`: moves the running development server's billing
// clock N days forward and runs its billing job, so renewals, scheduled plan changes,
// cancellations and credit expiry can be watched by hand with the local checkout. It asks the
// server (POST /_dev/billing/advance, loopback only) rather than opening the database itself:
// PGlite's files can be open in one process only.
import { parseArgs } from "node:util";
import { serverRunningHere } from "../server/operator/running-servers.ts";

// Without --port or PORT: the one server running from this folder (as the other operator
// commands find its data folder), else 4321.
const running = serverRunningHere(process.cwd());
const defaultPort = process.env.PORT ?? (running ? String(running.port) : "4321");
const { values } = parseArgs({
  options: {
    days: { type: "string" },
    port: { type: "string", default: defaultPort },
  },
});

const days = Number(values.days);
if (!values.days || !Number.isFinite(days) || days <= 0) {
  console.error("Usage: npm run billing:advance -- --days N [--port 4321]");
  process.exit(2);
}

const url = `http://127.0.0.1:${values.port}/_dev/billing/advance`;
try {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ days }),
  });
  const body = await res.text();
  if (!res.ok) {
    console.error(`${url} answered ${res.status}: ${body}`);
    process.exit(1);
  }
  const result = JSON.parse(body) as { now: string; offset_days: number; billed: number; delivered: number };
  console.log(
    `Billing clock now ${result.now} (${result.offset_days} days ahead); ${result.billed} subscription steps billed, ${result.delivered} webhook deliveries attempted.`,
  );
} catch (error) {
  console.error(
    `Could not reach the server at ${url} (is it running, with the local checkout?): ${String(error)}`,
  );
  process.exit(1);
}
