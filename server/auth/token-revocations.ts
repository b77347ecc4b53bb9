// Access tokens signed out one at a time (POST /v1/logout): each revoked token's id (`jti`) until
// the token would have expired anyway. Every request checks it, so the check must not cost a
// database round trip: each instance keeps the set in memory, loaded once at start, and learns of
// revocations made by other instances through a notification channel (PostgreSQL LISTEN/NOTIFY:
// the notification is sent when the revoking transaction commits). A channel that reconnects
// reloads the whole set, so a notification missed while it was down is not lost. And the set is
// read again every 30 s whatever the channel says: postgres.js swallows a failure to listen again
// after a reconnect. It sends the LISTEN again at its next connect (db/listen.test.ts), but a LISTEN
// refused on a live connection would leave the channel deaf without a word, and tokens signed out
// elsewhere accepted here until they expire (a day). On PGlite, one process is the only instance:
// no channel is needed.
import { gt, lt } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { revokedAccessTokens } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/types.ts";

/** Carries revocations between instances: sent in the revoking transaction, heard by every instance. */
export interface RevocationChannel {
  notify(tx: Tx, payload: string): Promise<void>;
  /** Calls `onPayload` for each notification and `onResync` once listening (again, after a reconnect). */
  listen(onPayload: (payload: string) => void, onResync: () => void): Promise<void>;
}

export interface RevokedToken {
  jti: string;
  userId: string;
  /** The token's own expiry, in seconds since the epoch: the revocation is needed until then. */
  exp: number;
}

export interface TokenRevocations {
  /** Loads the revoked tokens and starts listening to the other instances; once, before serving. */
  start(): Promise<void>;
  /** Whether the token with this id was signed out (in memory, no I/O). */
  isRevoked(jti: string): boolean;
  /** Revokes the token in `tx`; this instance refuses it at once, the others when `tx` commits. */
  revoke(tx: Tx, token: RevokedToken): Promise<void>;
  close(): Promise<void>;
}

/** The name of the notification channel on PostgreSQL. */
export const REVOCATION_CHANNEL = "portal_token_revocations";

const encode = (token: Pick<RevokedToken, "jti" | "exp">) => `${token.exp} ${token.jti}`;

function decode(payload: string): { jti: string; exp: number } | undefined {
  const [exp, jti] = payload.split(" ");
  return jti && exp && Number.isInteger(Number(exp)) ? { jti, exp: Number(exp) } : undefined;
}

/** How often the set forgets the tokens that have expired by themselves since (and the table too). */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * How often an instance with a channel reads the set again, in case the channel went deaf: the
 * longest a sign-out elsewhere can then go unheard here. One indexed read of the unexpired rows.
 */
export const RESYNC_INTERVAL_MS = 30_000;

export function createTokenRevocations(
  db: Db,
  clock: Clock,
  channel?: RevocationChannel,
  resyncMs = RESYNC_INTERVAL_MS,
): TokenRevocations {
  /** jti → exp (seconds). */
  let revoked = new Map<string, number>();
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  const reload = async () => {
    const rows = await db
      .select({ jti: revokedAccessTokens.jti, expiresAt: revokedAccessTokens.expiresAt })
      .from(revokedAccessTokens)
      .where(gt(revokedAccessTokens.expiresAt, clock.now()));
    const fresh = new Map(rows.map((r) => [r.jti, Math.floor(r.expiresAt.getTime() / 1000)]));
    // Keep what was heard while the rows were read: a revocation committed meanwhile.
    for (const [jti, exp] of revoked) if (!fresh.has(jti)) fresh.set(jti, exp);
    revoked = fresh;
  };
  const sweep = () => {
    const now = nowSeconds();
    for (const [jti, exp] of revoked) if (exp <= now) revoked.delete(jti);
  };

  let timer: NodeJS.Timeout | undefined;
  let resync: NodeJS.Timeout | undefined;
  const start = async () => {
    if (channel) {
      let first = true;
      await channel.listen(
        (payload) => {
          const token = decode(payload);
          if (token) revoked.set(token.jti, token.exp);
        },
        () => {
          // The first load follows below; later calls come after a reconnect.
          if (first) first = false;
          else void reload().catch(() => undefined);
        },
      );
    }
    // After listening starts: a revocation committed between the read and the LISTEN is not missed.
    await reload();
    timer = setInterval(() => {
      sweep();
      void db
        .delete(revokedAccessTokens)
        .where(lt(revokedAccessTokens.expiresAt, clock.now()))
        .catch(() => undefined);
    }, SWEEP_INTERVAL_MS);
    timer.unref();
    if (channel) {
      resync = setInterval(() => void reload().catch(() => undefined), resyncMs);
      resync.unref();
    }
  };

  return {
    start,
    isRevoked: (jti) => revoked.has(jti),
    async revoke(tx, token) {
      await tx
        .insert(revokedAccessTokens)
        .values({ jti: token.jti, userId: token.userId, expiresAt: new Date(token.exp * 1000) })
        .onConflictDoNothing();
      await channel?.notify(tx, encode(token));
      // At once here; should the transaction roll back, the token stays refused: the safe side.
      revoked.set(token.jti, token.exp);
    },
    async close() {
      clearInterval(timer);
      clearInterval(resync);
    },
  };
}
