// Coalesces concurrent calls into batches: calls that arrive while a batch is running (or in the
// same turn of the event loop as the first) run together in the next one. Metering uses it so that
// many charges share one transaction and one commit: a charge's cost is then mostly its HTTP
// request, not its round trips to the database (decision 012).

export interface BatchedOptions {
  /** At most this many items in one batch; the rest wait for the next. */
  maxBatch: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * `run` gets the items of a batch in arrival order and answers one result per item, in the same
 * order. When it throws, each item of that batch is run again on its own, so a failure reaches only
 * the callers whose item causes it (`run` must therefore have no effect when it throws, as a
 * rolled-back transaction has none). One batch runs at a time: with two or four at once, metering
 * measured slower, as the batches wait on each other's user locks (decision 012).
 */
export function batched<I, O>(
  run: (items: readonly I[]) => Promise<readonly O[]>,
  options: BatchedOptions,
): (item: I) => Promise<O> {
  const queue: Pending<I, O>[] = [];
  let draining = false;

  async function runAlone(pending: Pending<I, O>): Promise<void> {
    try {
      const [result] = await run([pending.item]);
      pending.resolve(result as O);
    } catch (error) {
      pending.reject(error);
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      if (batch.length === 1) {
        await runAlone(batch[0] as Pending<I, O>);
        continue;
      }
      let results: readonly O[];
      try {
        results = await run(batch.map((p) => p.item));
      } catch {
        for (const pending of batch) await runAlone(pending);
        continue;
      }
      batch.forEach((pending, i) => {
        pending.resolve(results[i] as O);
      });
    }
    draining = false;
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (draining) return;
      draining = true;
      // Not at once: the calls of the same event-loop turn (a burst of requests) join this batch.
      setImmediate(() => void drain());
    });
}
