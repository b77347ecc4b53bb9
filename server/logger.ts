// Structured logs (pino). Whatever a handler or library passes in, these never reach the output:
// passwords, mailed tokens, access tokens, password hashes, Authorization headers. Database errors
// are logged without their bound parameters (Drizzle puts them in the message: they can hold a
// password hash or an e-mail address).
import pino, { type Logger } from "pino";

export const REDACTED_PATHS = [
  "password",
  "confirmPassword",
  "newPassword",
  "token",
  "access_token",
  "accessToken",
  "passwordHash",
  "password_hash",
  "tokenHash",
  "token_hash",
  "secret",
  "authorization",
  "cookie",
].flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

interface DbErrorLike extends Error {
  query?: unknown;
  params?: unknown;
  cause?: unknown;
  code?: unknown;
  constraint?: unknown;
  constraint_name?: unknown;
}

/** Serialises an error for the log, keeping a database error's SQL but never its parameters or row values. */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const e = error as DbErrorLike;
  const isDbQueryError = typeof e.query === "string" && "params" in e;
  const cause = e.cause instanceof Error ? e.cause : undefined;
  return {
    type: e.name,
    message: isDbQueryError ? `Failed query: ${e.query as string}` : e.message,
    stack: isDbQueryError ? undefined : e.stack,
    ...(typeof e.code === "string" ? { code: e.code } : {}),
    ...(typeof (e.constraint ?? e.constraint_name) === "string"
      ? { constraint: e.constraint ?? e.constraint_name }
      : {}),
    ...(cause
      ? { cause: isDbQueryError || "code" in cause ? dbCause(cause as DbErrorLike) : serializeError(cause) }
      : {}),
  };
}

// A PostgreSQL error's message is safe (it names the problem, not the row); its `detail` can
// quote the offending values, so it is left out.
function dbCause(cause: DbErrorLike): Record<string, unknown> {
  return {
    type: cause.name,
    message: cause.message,
    ...(typeof cause.code === "string" ? { code: cause.code } : {}),
    ...(typeof (cause.constraint ?? cause.constraint_name) === "string"
      ? { constraint: cause.constraint ?? cause.constraint_name }
      : {}),
  };
}

/** Log lines gathered before one write to standard output, and the longest a line waits. */
export const LOG_CHUNK_BYTES = 4096;
export const LOG_FLUSH_MS = 100;

/**
 * Standard output written in chunks: one write(2) per ~4 KB of lines instead of one per line,
 * which cost the request log a measurable share of every API call (issue 35). A line waits at
 * most LOG_FLUSH_MS; pino flushes what is left when the process exits (its exit hook), so only a
 * SIGKILL can lose the last 100 ms of lines.
 */
export function chunkedStdout(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: LOG_CHUNK_BYTES, periodicFlush: LOG_FLUSH_MS });
}

export function createLogger(
  options: { level: string; pretty?: boolean },
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: options.level,
      base: { service: "genai-portal" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      serializers: { err: serializeError, error: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
