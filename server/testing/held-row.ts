// Another PostgreSQL session holding a credit grant's row FOR UPDATE, as a charge under the lock or
// a refund does while its transaction runs: what waits for it, and in which order, can then be seen.
import postgres from "postgres";

export interface HeldRow {
  /** Ends the holding transaction: what waited goes on. */
  release(): void;
  /** Closes the session (after `release`, or at a test's end whatever happened). */
  end(): Promise<void>;
}

/** Resolves once the row is held. PostgreSQL only (PGlite is one session). */
export async function holdGrantRow(url: string, grantId: string): Promise<HeldRow> {
  const session = postgres(url, { max: 1, onnotice: () => {} });
  const release = await new Promise<() => void>((holding) => {
    void session.begin(async (tx) => {
      await tx`select id from credit_grants where id = ${grantId} for update`;
      await new Promise<void>((done) => holding(done));
    });
  });
  return { release, end: () => session.end({ timeout: 5 }) };
}
