// Work that must not run in a request's path: sending mail after registration or a reset request,
// so that neither the answer nor its timing depends on the SMTP round-trip or on whether the
// address exists. Failures are logged, never lost silently; shutdown and tests wait for idle().
import type { Logger } from "pino";

export interface BackgroundTasks {
  run(label: string, task: () => Promise<void>): void;
  /** Resolves when every task started so far (and any they started) has finished. */
  idle(): Promise<void>;
}

export function createBackgroundTasks(logger: Logger): BackgroundTasks {
  const pending = new Set<Promise<void>>();
  return {
    run(label, task) {
      const running = Promise.resolve()
        .then(task)
        .catch((error: unknown) =>
          logger.error({ err: error, task: label }, `Background task "${label}" failed`),
        )
        .finally(() => pending.delete(running));
      pending.add(running);
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
