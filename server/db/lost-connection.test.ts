// A connection that is gone, told from a statement's failure, and the answers it leaves unsettled
// (the real thing on PostgreSQL: two-trip-transaction.test.ts).
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { connectionLost, watchedConnection } from "./lost-connection.ts";

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
