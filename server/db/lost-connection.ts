// A pinned connection that is gone (issue 35, decision 036): how metering's pipeline and the
// two-trip transactions tell it from a statement that failed on a live connection, and how they
// stop waiting for answers that will never come. Plain functions, in the mutation set.
import postgres from "postgres";

/**
 * How long a pinned connection may stay silent (no answer at all) while statements sent on it are
 * awaited before it is taken for gone. Each answer starts the count again, so a server that is slow
 * but answering is waited for. The server ends what is stuck on its side sooner (two-trip-
 * transaction.ts TRANSACTION_BEGIN: locks 5 s, statements 10 s); a peer gone without a word (a
 * network cut, a host that died) leaves statements in flight until the kernel gives up on
 * retransmitting, about 15 minutes, and metering would wait that long for every charge.
 */
export const ANSWER_DEADLINE_MS = 30_000;

/** What every answer still awaited fails with when the deadline has passed. */
export function noAnswerError(deadlineMs: number): Error {
  return Object.assign(
    new Error(`PostgreSQL has not answered for ${deadlineMs / 1000} s: the connection is taken for gone`),
    { code: "NO_ANSWER" },
  );
}

/**
 * How long a connection of the pool is waited for before the transaction that wanted it fails,
 * having sent nothing on it. postgres.js's `reserve()` waits without end, in the same queue as every
 * other query of the pool: while every connection is held by something stuck (a network cut holds
 * them until the kernel gives up, about 15 minutes) or the pool is far behind its queue. Metering
 * runs one batch at a time, so it would hold every charge that long. A pool that keeps up answers
 * in milliseconds; 15 s behind, the generation service's callers have given up, and an error it can
 * retry with the same idempotency key is the better answer.
 */
export const RESERVE_DEADLINE_MS = 15_000;

/** An error's `code` (the driver's, the socket's, PostgreSQL's SQLSTATE, or ours), if it has one. */
const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null | undefined)?.code;

/** The code of noConnectionError. */
export const NO_CONNECTION = "NO_CONNECTION";

/** Whether `error` is noConnectionError's: no connection came, so nothing was sent on one. */
export const noConnection = (error: unknown): boolean => codeOf(error) === NO_CONNECTION;

/** What a transaction fails with when no connection of the pool came within the deadline. */
export function noConnectionError(deadlineMs: number): Error {
  return Object.assign(
    new Error(`No database connection was free within ${deadlineMs / 1000} s: nothing was sent`),
    { code: NO_CONNECTION },
  );
}

/**
 * The connection `reserving` gives, if it does within `deadlineMs`; otherwise a failure with
 * noConnectionError, and the connection, should it come later, goes straight to `giveBack` (were
 * it kept, the pool would be one connection short for good).
 */
export function reservedWithin<C>(
  reserving: Promise<C>,
  deadlineMs: number,
  giveBack: (connection: C) => void,
): Promise<C> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(noConnectionError(deadlineMs));
    }, deadlineMs);
    reserving.then(
      (connection) => {
        clearTimeout(timer);
        if (!late) return resolve(connection);
        try {
          giveBack(connection);
        } catch {
          // Nobody waits for it any more; a connection that cannot be handed back is the driver's.
        }
      },
      (error: unknown) => {
        clearTimeout(timer);
        // After the deadline this settles nothing: the caller has had its error.
        reject(error);
      },
    );
  });
}

/** postgres.js's own codes, and the socket's, for a connection that is gone. */
const LOST_CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTCONN",
]);

/**
 * Whether `error` says the connection itself is gone, not that a statement failed on a live one:
 * the driver's or the socket's codes, or a FATAL or PANIC from PostgreSQL (a termination or a
 * shutdown ends the session). An ERROR never does, whatever its class: an 08 or 57P raised as an
 * ERROR (a protocol check, dblink, RAISE) leaves the session and its transaction open, and one
 * taken for lost would be left holding its locks, never rolled back nor handed back.
 */
export function connectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code !== "string") return false;
  if (error instanceof postgres.PostgresError)
    return error.severity === "FATAL" || error.severity === "PANIC";
  return LOST_CONNECTION_CODES.has(code);
}

/** The code of commitFailure's own error (two-trip-transaction.ts): every statement answered, and COMMIT did not commit. */
export const COMMIT_NOT_KEPT = "COMMIT_NOT_KEPT";

/**
 * Whether a transaction whose writes and COMMIT were sent, and which then failed with `error`, may
 * have kept a write all the same:
 * - the connection was lost, or fell silent, before COMMIT's answer came;
 * - COMMIT did not commit though every statement answered (`COMMIT_NOT_KEPT`,
 *   two-trip-transaction.ts commitFailure): postgres.js sent a failed write again after the
 *   COMMIT, and that second try may have been kept outside the transaction.
 * Anything else is a known failure: a write that failed on a live connection aborted the
 * transaction, and nothing was kept.
 */
export function outcomeUnknown(error: unknown): boolean {
  const code = codeOf(error);
  return connectionLost(error) || code === "NO_ANSWER" || code === COMMIT_NOT_KEPT;
}

/**
 * Watches the answers of one pinned connection's statements for the first that says the
 * connection is gone, and then fails every answer still awaited. postgres.js holds back what is
 * sent on a pinned connection while a statement new to it is being described (or while 100 are
 * out), and when the connection closes it fails the statements it sent but forgets those it held
 * back: their promises would never settle, and metering, awaiting them, would stop for good.
 */
export function watchedConnection(
  deadlineMs = ANSWER_DEADLINE_MS,
  now: () => number = Date.now,
): {
  /**
   * The answer, or its failure; failed too once another statement said the connection is gone,
   * or once the connection has been silent for the deadline while answers were awaited.
   */
  settled: <T>(answer: Promise<T>) => Promise<T>;
  lost: () => boolean;
  /** Taken for gone because it went silent, not because a statement said so: it may answer yet. */
  silent: () => boolean;
} {
  let lost = false;
  let silent = false;
  const awaited = new Set<(error: unknown) => void>();
  // The last answer, or when the connection began to be awaited: silence is counted from there.
  let heardAt = 0;
  let armed = false;
  const giveUp = (error: unknown) => {
    lost = true;
    for (const fail of awaited) fail(error);
    awaited.clear();
  };
  const check = () => {
    armed = false;
    if (awaited.size === 0) return;
    const quiet = now() - heardAt;
    if (quiet < deadlineMs) return arm(deadlineMs - quiet);
    silent = true;
    giveUp(noAnswerError(deadlineMs));
  };
  const arm = (ms: number) => {
    armed = true;
    setTimeout(check, ms);
  };
  const heard = () => {
    heardAt = now();
  };
  return {
    settled: (answer) =>
      new Promise((resolve, reject) => {
        if (awaited.size === 0) heard();
        awaited.add(reject);
        if (!armed) arm(deadlineMs);
        answer.then(
          (value) => {
            heard();
            awaited.delete(reject);
            resolve(value);
          },
          (error: unknown) => {
            heard();
            awaited.delete(reject);
            reject(error);
            if (!lost && connectionLost(error)) giveUp(error);
          },
        );
      }),
    lost: () => lost,
    silent: () => silent,
  };
}

/**
 * Whether a connection taken for gone for its silence has come back: every statement sent on it
 * has answered after all (or failed on its own), and none said the connection is gone. Such a
 * connection is alive, only slow: rolled back, it may be handed back to the pool, which would
 * otherwise have lost it for good (postgres.js keeps a pinned connection until it is released).
 */
export function answeredAfterAll(outcomes: readonly PromiseSettledResult<unknown>[]): boolean {
  // A fulfilled outcome has no reason, and connectionLost(undefined) is false.
  return !outcomes.some((o) => connectionLost((o as { reason?: unknown }).reason));
}
