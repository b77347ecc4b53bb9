// Batches of two-trip transactions that cost one round trip each while they keep coming (issue 35,
// decision 036). As batched.ts, concurrent calls are gathered into batches, one batch in the
// database at a time. But the batches run on one pinned connection, and once a batch's reads have
// answered and it has decided, its writes and COMMIT go out together with the next batch's BEGIN
// and reads: PostgreSQL runs a connection's statements in the order they arrive, so the next
// batch's reads still run after the COMMIT and see everything it wrote (a repeated idempotency key
// is found, a spent grant is spent), and its lock is taken only then. Only the wait between them is
// gone: on metering, about 40 % of what separated a batch from the floor's (the figures).
//
// Failures keep batched.ts's rule: a batch that fails leaves nothing behind (its transaction rolls
// back) and each of its items runs again on its own, so a failure reaches only the callers whose
// item causes it. A batch that was sent behind a failed one is rolled back untouched and runs
// again as it was. After any failure the pipeline starts again on a fresh connection from the
// pool, so a connection that broke costs the batches in flight on it and nothing more. On PGlite,
// in process with no round trips to save, spends.ts runs each batch as batched.ts does.
//
// A batch whose COMMIT went out but whose answer never came (the connection lost, or silent), or
// whose COMMIT did not commit though every statement answered (a write the driver sent again after
// it: lost-connection.ts outcomeUnknown), may have kept what it wrote. Its items run again like any
// failed batch's, and each may find what its first try wrote: `settle` then answers it from that
// try's decision, as if the COMMIT's answer had come (for spends: the charge it made, not a replay
// of it). A lone item in that state runs once more, alone, rather than failing its caller with an
// error for a charge that may well have been made; unless no connection of the pool comes for that
// try within RESERVE_DEADLINE_MS (lost-connection.ts), when its caller gets that error.

import { noConnection, outcomeUnknown } from "../db/lost-connection.ts";
import {
  answersAfterBegin,
  type Bound,
  commitFailure,
  firstFailure,
  type PinnedConnection,
  TRANSACTION_BEGIN,
  type TwoTripSteps,
} from "../db/two-trip-transaction.ts";
import type { BatchedOptions } from "./batched.ts";

/** A batch's two-trip transaction: its reads, and from their answers one result per item and the writes. */
export type BatchSteps<O> = TwoTripSteps<readonly Bound<unknown>[], readonly O[]>;

export interface PipelineOptions<O> extends BatchedOptions {
  /**
   * The answer of an item whose earlier try's COMMIT went out with no answer back (`first`: that
   * try's decision), from what its try again decided (`again`). Without it, `again`. It must not
   * throw: it runs where the pipeline can no longer fail a caller.
   */
  settle?: (first: O, again: O) => O;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
  /** Its batch failed: it runs again in a batch of its own, and a second failure is its caller's. */
  alone: boolean;
  /** What it was decided in a try whose writes and COMMIT went out, and may have been kept. */
  sent?: { decided: O } | undefined;
  /** It ran alone into an unknown outcome once already: the next failure is its caller's. */
  retriedAlone?: boolean;
}

/** How a step of a batch came out; `open`: a transaction is left open on the connection. */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown; open: boolean };

interface Sent<I, O> {
  batch: Pending<I, O>[];
  steps: BatchSteps<O> | undefined;
  /** The answers of the batch's reads, in their order (never rejects). */
  answered: Promise<Outcome<unknown[]>>;
}

/**
 * The pipeline on connections from `connect` (two-trip-transaction.ts connectionsOf; its tests give
 * it a fake one). `stepsOf` gets the items of a batch in arrival order; its `decide` answers one
 * result per item, in the same order.
 */
export function pipeline<I, O>(
  connect: () => Promise<PinnedConnection>,
  stepsOf: (items: readonly I[]) => BatchSteps<O>,
  options: PipelineOptions<O>,
): (item: I) => Promise<O> {
  const queue: Pending<I, O>[] = [];
  let draining = false;

  /**
   * The next batch: an item to run again, alone; else up to maxBatch items in arrival order. Items
   * to run alone are always at the front (`failed` puts them there, new calls go to the end).
   */
  function take(): Pending<I, O>[] {
    return queue.splice(0, queue[0]?.alone ? 1 : options.maxBatch);
  }

  /**
   * A batch failed with `error`: a lone item's caller gets it (unless what its try wrote may have
   * been kept: then it runs alone once more, to find out); a larger batch's items go back to the
   * front of the queue, each to run alone, followed by `untouched` (a batch sent after it and
   * rolled back) as it was.
   */
  function failed(batch: Pending<I, O>[], error: unknown, untouched: Pending<I, O>[] = []): void {
    if (batch.length === 1) {
      const [pending] = batch as [Pending<I, O>];
      if (pending.sent && outcomeUnknown(error) && !pending.retriedAlone) {
        pending.retriedAlone = true;
        pending.alone = true;
        queue.unshift(pending, ...untouched);
        return;
      }
      pending.reject(error);
      queue.unshift(...untouched);
      return;
    }
    for (const pending of batch) pending.alone = true;
    queue.unshift(...batch, ...untouched);
  }

  /** Sends a batch's BEGIN and reads; nothing is sent (and no transaction opened) when they cannot be. */
  function sendReads(connection: PinnedConnection, batch: Pending<I, O>[]): Sent<I, O> {
    let steps: BatchSteps<O>;
    let sent: Promise<unknown>[];
    try {
      steps = stepsOf(batch.map((p) => p.item));
      sent = connection.send([...TRANSACTION_BEGIN, ...steps.reads]);
    } catch (error) {
      return { batch, steps: undefined, answered: Promise.resolve({ ok: false, error, open: false }) };
    }
    const answered = Promise.allSettled(sent).then((outcomes): Outcome<unknown[]> => {
      const failure = firstFailure(outcomes);
      // A failed read aborts the transaction, which stays open until a ROLLBACK.
      if (failure) return { ok: false, error: failure.reason, open: true };
      return { ok: true, value: answersAfterBegin(outcomes) };
    });
    return { batch, steps, answered };
  }

  function decide(sent: Sent<I, O>, answers: unknown[]): Outcome<ReturnType<BatchSteps<O>["decide"]>> {
    try {
      return { ok: true, value: (sent.steps as BatchSteps<O>).decide(answers as never) };
    } catch (error) {
      return { ok: false, error, open: true };
    }
  }

  /** Settles what was sent after a failed batch: rolled back, to run again untouched. */
  async function rollBackUntouched(connection: PinnedConnection, sent: Sent<I, O> | undefined) {
    if (!sent) return [];
    const answered = await sent.answered;
    if (answered.ok || answered.open) await connection.rollBack();
    return sent.batch;
  }

  /** A call's answer: from its first try's decision when that try's outcome was unknown (`settle`). */
  function answerOf(pending: Pending<I, O>, result: O): O {
    return pending.sent && options.settle ? options.settle(pending.sent.decided, result) : result;
  }

  /** Runs batches on one connection until the queue is empty or a batch fails. Never throws. */
  async function runOn(connection: PinnedConnection): Promise<void> {
    let current: Sent<I, O> | undefined = sendReads(connection, take());
    while (current) {
      const answered = await current.answered;
      const planned = answered.ok ? decide(current, answered.value) : answered;
      if (!planned.ok) {
        if (planned.open) await connection.rollBack();
        failed(current.batch, planned.error);
        return;
      }
      let writes: Promise<unknown>[];
      try {
        // If a write fails, PostgreSQL aborts the transaction and turns this COMMIT into a
        // ROLLBACK: every write is kept or none is, and either way the transaction has ended.
        writes = connection.send([...planned.value.writes, "commit"]);
      } catch (error) {
        // Nothing was sent: the transaction is still open, and nothing may go out behind it.
        await connection.rollBack();
        failed(current.batch, error);
        return;
      }
      const nextBatch = take();
      const next = nextBatch.length > 0 ? sendReads(connection, nextBatch) : undefined;
      // Kept only when COMMIT itself says so (two-trip-transaction.ts commitFailure).
      const failure = commitFailure(await Promise.allSettled(writes));
      const results = planned.value.result;
      if (failure) {
        // What it wrote may have been kept: remembered, for the try again to recognise. A second
        // try's decision is settled first: a repeat of the first try's charge if that one was kept.
        if (outcomeUnknown(failure.error)) {
          current.batch.forEach((pending, i) => {
            pending.sent = { decided: answerOf(pending, results[i] as O) };
          });
        }
        failed(current.batch, failure.error, await rollBackUntouched(connection, next));
        return;
      }
      current.batch.forEach((pending, i) => {
        pending.resolve(answerOf(pending, results[i] as O));
      });
      current = next;
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      // The calls waiting when this pinning starts, those to run alone included.
      const waiting = queue.length;
      let connection: PinnedConnection;
      try {
        connection = await connect();
      } catch (error) {
        // No connection of the pool came within its deadline: no call is at fault, and trying
        // them one by one would keep each waiting as long again. Every call that waited the whole
        // deadline gets the error now; one whose earlier try's outcome was unknown too, as when
        // its try again fails with a known outcome (its idempotency key tells a later try whether
        // it was made). Calls that came meanwhile wait for the next pinning.
        if (noConnection(error)) for (const p of queue.splice(0, waiting)) p.reject(error);
        else failed(take(), error);
        continue;
      }
      try {
        await runOn(connection);
      } finally {
        connection.release();
      }
    }
    draining = false;
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject, alone: false });
      if (draining) return;
      draining = true;
      // Not at once: the calls of the same event-loop turn (a burst of requests) join this batch.
      setImmediate(() => void drain());
    });
}
