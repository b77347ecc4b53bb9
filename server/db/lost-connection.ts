// A pinned connection that is gone (issue 35, decision 036): how metering's pipeline and the
// two-trip transactions tell it from a statement that failed on a live connection, and how they
// stop waiting for answers that will never come. Plain functions, in the mutation set.
import postgres from "postgres";

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
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== "string") return false;
  if (error instanceof postgres.PostgresError)
    return error.severity === "FATAL" || error.severity === "PANIC";
  return LOST_CONNECTION_CODES.has(code);
}

/**
 * Watches the answers of one pinned connection's statements for the first that says the
 * connection is gone, and then fails every answer still awaited. postgres.js holds back what is
 * sent on a pinned connection while a statement new to it is being described (or while 100 are
 * out), and when the connection closes it fails the statements it sent but forgets those it held
 * back: their promises would never settle, and metering, awaiting them, would stop for good.
 */
export function watchedConnection(): {
  /** The answer, or its failure; failed too once another statement said the connection is gone. */
  settled: <T>(answer: Promise<T>) => Promise<T>;
  lost: () => boolean;
} {
  let lost = false;
  const awaited = new Set<(error: unknown) => void>();
  return {
    settled: (answer) =>
      new Promise((resolve, reject) => {
        awaited.add(reject);
        answer.then(
          (value) => {
            awaited.delete(reject);
            resolve(value);
          },
          (error: unknown) => {
            awaited.delete(reject);
            reject(error);
            if (lost || !connectionLost(error)) return;
            lost = true;
            for (const fail of awaited) fail(error);
            awaited.clear();
          },
        );
      }),
    lost: () => lost,
  };
}
