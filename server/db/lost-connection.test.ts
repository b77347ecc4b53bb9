// A connection that is gone, told from a statement's failure, and the answers it leaves unsettled
// (the real thing on PostgreSQL: two-trip-transaction.test.ts).
import postgres from "postgres";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ANSWER_DEADLINE_MS,
  answeredAfterAll,
  COMMIT_NOT_KEPT,
  connectionLost,
  noAnswerError,
  noConnection,
  noConnectionError,
  outcomeUnknown,
  RESERVE_DEADLINE_MS,
  reservedWithin,
  watchedConnection,
} from "./lost-connection.ts";

const coded = (code: unknown) => Object.assign(new Error("x"), { code });
/** An error as PostgreSQL sends it, with its SQLSTATE and severity. */
const fromServer = (code: unknown, severity = "ERROR") =>
  Object.assign(Object.create(postgres.PostgresError.prototype) as Error, {
    code,
    severity,
    message: String(code),
  });

describe("connectionLost", () => {
  it("is the driver's and the socket's codes for a connection that is gone", () => {
    for (const code of [
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
    ])
      expect(connectionLost(coded(code)), code).toBe(true);
  });

  it("is PostgreSQL's FATAL and PANIC, which end the session, and never an ERROR, whatever its class", () => {
    for (const [code, severity] of [
      ["57P01", "FATAL"],
      ["57P02", "PANIC"],
      ["08006", "FATAL"],
      ["XX000", "FATAL"],
    ])
      expect(connectionLost(fromServer(code, severity)), `${code} ${severity}`).toBe(true);
    for (const code of ["57P01", "08006", "08P01", "57014", "23505", "CONNECTION_CLOSED", undefined, 8006])
      expect(connectionLost(fromServer(code)), String(code)).toBe(false);
    expect(connectionLost(fromServer(7, "FATAL"))).toBe(false);
    expect(connectionLost(fromServer("57P01", "WARNING"))).toBe(false);
  });

  it("is not a statement's failure, nor anything without a code", () => {
    for (const code of ["UNDEFINED_VALUE", "23505", "57P01", "08006", undefined, 7])
      expect(connectionLost(coded(code))).toBe(false);
    expect(connectionLost(undefined)).toBe(false);
    expect(connectionLost(null)).toBe(false);
    expect(connectionLost(new Error("no code"))).toBe(false);
  });
});

/** A promise settled from outside, as a statement's answer is by the driver. */
function pending<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const gone = coded("CONNECTION_CLOSED");

describe("watchedConnection", () => {
  it("passes each answer and each statement's own failure through, and the connection stays", async () => {
    const watch = watchedConnection();
    const [a, b, c] = [pending<string>(), pending<string>(), pending<string>()];
    const answers = [a, b, c].map((p) => watch.settled(p.promise));
    a.resolve("a");
    b.reject(coded("23505"));
    c.resolve("c");
    expect(await Promise.allSettled(answers)).toEqual([
      { status: "fulfilled", value: "a" },
      { status: "rejected", reason: coded("23505") },
      { status: "fulfilled", value: "c" },
    ]);
    expect(watch.lost()).toBe(false);
  });

  it("fails every answer still awaited once one says the connection is gone", async () => {
    const watch = watchedConnection();
    const [answered, first, held, heldToo] = [pending<string>(), pending(), pending(), pending()];
    const answers = [answered, first, held, heldToo].map((p) => watch.settled(p.promise));
    answered.resolve("kept");
    await answers[0];
    expect(watch.lost()).toBe(false);
    first.reject(gone);
    // `held` and `heldToo` are never settled by the driver.
    expect(await Promise.allSettled(answers)).toEqual([
      { status: "fulfilled", value: "kept" },
      { status: "rejected", reason: gone },
      { status: "rejected", reason: gone },
      { status: "rejected", reason: gone },
    ]);
    expect(watch.lost()).toBe(true);
  });

  it("keeps the first error that said the connection is gone", async () => {
    const watch = watchedConnection();
    const [first, second, held] = [pending(), pending(), pending()];
    const answers = [first, second, held].map((p) => watch.settled(p.promise));
    first.reject(gone);
    second.reject(coded("ECONNRESET"));
    expect(await Promise.allSettled(answers)).toEqual([
      { status: "rejected", reason: gone },
      { status: "rejected", reason: gone },
      { status: "rejected", reason: gone },
    ]);
  });

  it("does not fail the others for a statement's own failure", async () => {
    const watch = watchedConnection();
    const [failing, later] = [pending(), pending<string>()];
    const answers = [failing, later].map((p) => watch.settled(p.promise));
    failing.reject(coded("23505"));
    await expect(answers[0]).rejects.toEqual(coded("23505"));
    later.resolve("fine");
    await expect(answers[1]).resolves.toBe("fine");
    expect(watch.lost()).toBe(false);
  });
});

describe("watchedConnection's deadline", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is 30 s, well past what the server allows a lock (5 s) or a statement (10 s)", () => {
    expect(ANSWER_DEADLINE_MS).toBe(30_000);
  });

  it("takes a connection silent for the deadline for gone, and fails every answer still awaited", async () => {
    const watch = watchedConnection(1000);
    const [answered, silent, later] = [pending<string>(), pending(), pending()];
    const first = [answered, silent].map((p) => watch.settled(p.promise));
    await vi.advanceTimersByTimeAsync(100);
    // Sent afterwards, on the same connection: it fails with the rest.
    const second = watch.settled(later.promise);
    const outcomes = Promise.allSettled([...first, second]);
    await vi.advanceTimersByTimeAsync(899);
    expect(watch.lost()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcomes).toEqual([
      { status: "rejected", reason: noAnswerError(1000) },
      { status: "rejected", reason: noAnswerError(1000) },
      { status: "rejected", reason: noAnswerError(1000) },
    ]);
    expect(watch.lost()).toBe(true);
    expect(watch.silent()).toBe(true);
  });

  it("counts the silence again from each answer: a slow connection that answers is waited for", async () => {
    const watch = watchedConnection(1000);
    const [slow, slower, slowest] = [pending<string>(), pending<string>(), pending()];
    const answers = [slow, slower, slowest].map((p) => watch.settled(p.promise));
    const outcomes = Promise.allSettled(answers);
    await vi.advanceTimersByTimeAsync(800);
    slow.resolve("at 0.8 s");
    await vi.advanceTimersByTimeAsync(900);
    slower.resolve("at 1.7 s");
    await vi.advanceTimersByTimeAsync(999);
    expect(watch.lost()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcomes).toEqual([
      { status: "fulfilled", value: "at 0.8 s" },
      { status: "fulfilled", value: "at 1.7 s" },
      { status: "rejected", reason: noAnswerError(1000) },
    ]);
  });

  it("counts from when the connection is awaited again, not from its last answer before", async () => {
    const watch = watchedConnection(1000);
    const first = pending<string>();
    const answer = watch.settled(first.promise);
    first.resolve("done");
    await answer;
    await vi.advanceTimersByTimeAsync(5000);
    const next = pending<string>();
    const nextAnswer = watch.settled(next.promise);
    await vi.advanceTimersByTimeAsync(999);
    expect(watch.lost()).toBe(false);
    next.resolve("in time");
    await expect(nextAnswer).resolves.toBe("in time");
    await vi.advanceTimersByTimeAsync(5000);
    expect(watch.lost()).toBe(false);
  });

  it("counts a statement's silence from when it was sent, after the connection was idle", async () => {
    const watch = watchedConnection(1000);
    const first = pending<string>();
    const firstAnswer = watch.settled(first.promise);
    await vi.advanceTimersByTimeAsync(100);
    first.resolve("at 0.1 s");
    await firstAnswer;
    await vi.advanceTimersByTimeAsync(850);
    // Sent at 0.95 s: silent from then, not from the answer at 0.1 s.
    const next = watch.settled(pending().promise);
    const outcome = Promise.allSettled([next]);
    await vi.advanceTimersByTimeAsync(999);
    expect(watch.lost()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual([{ status: "rejected", reason: noAnswerError(1000) }]);
  });

  it("gives up on a statement sent after an idle spell, and keeps one timer however many are sent", async () => {
    const watch = watchedConnection(1000);
    const first = pending<string>();
    const firstAnswer = watch.settled(first.promise);
    first.resolve("done");
    await firstAnswer;
    await vi.advanceTimersByTimeAsync(5000);
    expect(vi.getTimerCount()).toBe(0);
    const answers = [pending(), pending(), pending()].map((p) => watch.settled(p.promise));
    const outcomes = Promise.allSettled(answers);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await outcomes).map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(watch.silent()).toBe(true);
  });

  it("waits 30 s unless told otherwise", async () => {
    const watch = watchedConnection();
    const answer = watch.settled(pending().promise);
    answer.catch(() => {});
    await vi.advanceTimersByTimeAsync(29_999);
    expect(watch.lost()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).rejects.toEqual(noAnswerError(30_000));
  });

  it("keeps the error of a connection that said it was gone: not silent", async () => {
    const watch = watchedConnection(1000);
    const [first, held] = [pending(), pending()];
    const answers = [first, held].map((p) => watch.settled(p.promise));
    const outcomes = Promise.allSettled(answers);
    first.reject(gone);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await outcomes).toEqual([
      { status: "rejected", reason: gone },
      { status: "rejected", reason: gone },
    ]);
    expect(watch.silent()).toBe(false);
  });

  it("says in its error how long it waited, with a code of its own", () => {
    const error = noAnswerError(30_000);
    expect(error.message).toBe("PostgreSQL has not answered for 30 s: the connection is taken for gone");
    expect((error as Error & { code: string }).code).toBe("NO_ANSWER");
  });
});

describe("reservedWithin", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits 15 s for a connection of the pool", () => {
    expect(RESERVE_DEADLINE_MS).toBe(15_000);
  });

  it("gives the connection that comes within the deadline, and never gives it back itself", async () => {
    const reserving = pending<string>();
    const giveBack = vi.fn();
    const reserved = reservedWithin(reserving.promise, 1000, giveBack);
    await vi.advanceTimersByTimeAsync(999);
    reserving.resolve("connection");
    expect(await reserved).toBe("connection");
    // Its timer was stopped: the deadline passing later changes nothing.
    await vi.advanceTimersByTimeAsync(5000);
    expect(giveBack).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("fails at the deadline, and gives back the connection that comes after it", async () => {
    const reserving = pending<string>();
    const giveBack = vi.fn();
    const reserved = reservedWithin(reserving.promise, 1000, giveBack);
    const outcome = Promise.allSettled([reserved]);
    await vi.advanceTimersByTimeAsync(999);
    expect(giveBack).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual([{ status: "rejected", reason: noConnectionError(1000) }]);
    expect(giveBack).not.toHaveBeenCalled();
    reserving.resolve("late");
    await vi.advanceTimersByTimeAsync(0);
    expect(giveBack).toHaveBeenCalledExactlyOnceWith("late");
  });

  it("passes on the pool's own failure at once, with its timer stopped", async () => {
    const reserving = pending<string>();
    const giveBack = vi.fn();
    const outcome = Promise.allSettled([reservedWithin(reserving.promise, 1000, giveBack)]);
    const refused = coded("ECONNREFUSED");
    reserving.reject(refused);
    expect(await outcome).toEqual([{ status: "rejected", reason: refused }]);
    expect(vi.getTimerCount()).toBe(0);
    expect(giveBack).not.toHaveBeenCalled();
  });

  it("keeps going when the late connection cannot be handed back: nobody waits for it", async () => {
    const reserving = pending<string>();
    const outcome = Promise.allSettled([
      reservedWithin(reserving.promise, 1000, () => {
        throw new Error("cannot release");
      }),
    ]);
    await vi.advanceTimersByTimeAsync(1000);
    reserving.resolve("late");
    await vi.advanceTimersByTimeAsync(0);
    // Had the throw escaped, the promise of the hand-back would reject with nobody to catch it.
    expect(await outcome).toEqual([{ status: "rejected", reason: noConnectionError(1000) }]);
  });

  it("is told from every other failure by its code alone", () => {
    expect(noConnection(noConnectionError(15_000))).toBe(true);
    expect(noConnection(coded("NO_CONNECTION"))).toBe(true);
    expect(noConnection(noAnswerError(30_000))).toBe(false);
    expect(noConnection(coded("ECONNREFUSED"))).toBe(false);
    expect(noConnection(new Error("NO_CONNECTION"))).toBe(false);
    expect(noConnection(null)).toBe(false);
    expect(noConnection(undefined)).toBe(false);
  });

  it("says in its error how long it waited, with a code of its own, and that nothing was sent", () => {
    const error = noConnectionError(15_000);
    expect(error.message).toBe("No database connection was free within 15 s: nothing was sent");
    expect((error as Error & { code: string }).code).toBe("NO_CONNECTION");
    // Nothing was sent: a charge that failed so was not kept, and is no repeat when tried again.
    expect(outcomeUnknown(error)).toBe(false);
  });
});

describe("answeredAfterAll", () => {
  const fulfilled = (value: unknown): PromiseSettledResult<unknown> => ({ status: "fulfilled", value });
  const rejected = (reason: unknown): PromiseSettledResult<unknown> => ({ status: "rejected", reason });

  it("is a silent connection that answered everything after all, a statement's own failure included", () => {
    expect(answeredAfterAll([])).toBe(true);
    expect(answeredAfterAll([fulfilled(1), rejected(coded("23505")), fulfilled(2)])).toBe(true);
  });

  it("is never one where a statement said the connection is gone", () => {
    expect(answeredAfterAll([fulfilled(1), rejected(gone)])).toBe(false);
    expect(answeredAfterAll([rejected(coded("ECONNRESET")), fulfilled(1)])).toBe(false);
  });
});

describe("outcomeUnknown", () => {
  it("is a lost connection, or one that fell silent: COMMIT may have gone through", () => {
    expect(outcomeUnknown(coded("CONNECTION_CLOSED"))).toBe(true);
    expect(outcomeUnknown(fromServer("57P01", "FATAL"))).toBe(true);
    expect(outcomeUnknown(noAnswerError(30_000))).toBe(true);
  });

  it("is a COMMIT that did not commit though every statement answered: a write sent again may be kept", () => {
    expect(outcomeUnknown(coded(COMMIT_NOT_KEPT))).toBe(true);
    expect(COMMIT_NOT_KEPT).toBe("COMMIT_NOT_KEPT");
  });

  it("is never a statement's failure on a live connection, nor a COMMIT that answered", () => {
    expect(outcomeUnknown(fromServer("23505"))).toBe(false);
    expect(outcomeUnknown(fromServer("55P03"))).toBe(false);
    expect(outcomeUnknown(new Error("The transaction was not committed"))).toBe(false);
    expect(outcomeUnknown(coded("NO_ANSWERS"))).toBe(false);
    expect(outcomeUnknown(undefined)).toBe(false);
    expect(outcomeUnknown(null)).toBe(false);
  });
});
