// A throwaway PostgreSQL database for one benchmark run: created fresh, dropped afterwards.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { toMillicredits } from "../server/domain/ledger.ts";

export const DEFAULT_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export interface TempDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTempDatabase(adminUrl = DEFAULT_ADMIN_URL): Promise<TempDatabase> {
  const name = `bench_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

/**
 * Credits for organisations, written straight into the benchmark's database: a `topup` grant each,
 * as a paid top-up would leave (credit_grants.user_id is the paying organisation's id), with a
 * fulfilment key of its own so it can never collide with a real payment's.
 */
export async function grantCredits(databaseUrl: string, orgIds: readonly string[], credits: number) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const millicredits = toMillicredits(credits);
    for (const orgId of orgIds) {
      await sql`
        insert into credit_grants
          (id, user_id, kind, amount, remaining, granted_at, source, fulfilment_key)
        values
          (gen_random_uuid(), ${orgId}, 'topup', ${millicredits}, ${millicredits}, now(),
           'Benchmark credits', ${`bench:${orgId}`})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
