// The pipeline's order of sending and its failures, on a fake connection that records what is sent
// and answers each statement a moment later (the real thing on PostgreSQL is covered by
// spends.test.ts, the consume route's tests and tests/system).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { noConnectionError } from "../db/lost-connection.ts";
import { type Bound, type PinnedConnection, statement } from "../db/two-trip-transaction.ts";
import { type BatchSteps, pipeline } from "./pipelined-batches.ts";

const read = statement("read", (q) => q.execute(sql`select 1`));
const write = statement("write", (q) => q.execute(sql`select 1`));

/** What a statement is called in the log: `read(1,2)`, `write(3)`, or its text. */
function label(s: Bound<unknown> | string): string {
  if (typeof s === "string") return s.startsWith("begin") ? "begin" : s;
  return `${s.definition.name}(${(s.values.items as number[]).join(",")})`;
}

interface FakeOptions {
  /** Statements (by label) that fail when they run. */
  failing?: string[];
  /** Statements (by label) whose answer fails as on a lost connection. */
  losing?: string[];
  /** Statements (by label) that cannot even be sent (send throws). */
  unsendable?: string[];
  /** Called on every send, after it is logged: calls arriving meanwhile. */
  onSend?: (labels: string[]) => void;
  /** What pinning connection N fails with, if it does ("connection N refused" for the unreachable). */
  refusal?: (n: number) => Error | undefined;
  /** Connections that cannot be pinned, by their number (1 is the first). */
  unreachable?: number[];
  /**
   * What the COMMITs answer, in turn (then "COMMIT"). "LOST_AFTER": committed, but the answer fails
   * as on a lost connection; "LOST_BEFORE": the same failure, with nothing committed;
   * "STRAY_KEPT": answers ROLLBACK, but the write was kept (sent again by the driver after it).
   */
  commitAnswers?: string[];
  /** Called with the values of the write a COMMIT kept. */
  onCommitted?: (values: unknown[]) => void;
}

const lostConnection = () =>
  Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" });

function fakeDatabase(options: FakeOptions = {}) {
  const log: string[] = [];
  let pinned = 0;
  const connect = async (): Promise<PinnedConnection> => {
    pinned += 1;
    const n = pinned;
    const refused = options.refusal?.(n);
    if (refused) throw refused;
    if (options.unreachable?.includes(n)) throw new Error(`connection ${n} refused`);
    log.push(`pin ${n}`);
    return {
      send(statements) {
        const labels = statements.map(label);
        const cannot = labels.find((l) => options.unsendable?.includes(l));
        if (cannot) throw new Error(`cannot send ${cannot}`);
        log.push(`${n}: ${labels.join(" ")}`);
        options.onSend?.(labels);
        const written = statements.find(
          (st): st is Bound<unknown> => typeof st !== "string" && st.definition.name === "write",
        );
        return labels.map(
          (l) =>
            new Promise((resolve, reject) => {
              setImmediate(() => {
                log.push(`${n}: answered ${l}`);
                if (options.failing?.includes(l)) reject(new Error(`${l} failed`));
                else if (options.losing?.includes(l)) reject(lostConnection());
                // As postgres.js: the rows, with the command PostgreSQL answered.
                else if (l === "commit") {
                  const answer = options.commitAnswers?.shift() ?? "COMMIT";
                  if (answer === "COMMIT" || answer === "LOST_AFTER" || answer === "STRAY_KEPT")
                    options.onCommitted?.(written?.values.items as unknown[]);
                  if (answer === "STRAY_KEPT") resolve(Object.assign([], { command: "ROLLBACK" }));
                  else if (answer.startsWith("LOST")) reject(lostConnection());
                  else resolve(Object.assign([], { command: answer }));
                } else resolve([l]);
              });
            }),
        );
      },
      async rollBack() {
        log.push(`${n}: rollback`);
      },
      release() {
        log.push(`release ${n}`);
      },
    };
  };
  return { log, connect };
}

const steps = (items: readonly number[]): BatchSteps<number> => ({
  reads: [read({ items })],
  decide: () => ({ result: items.map((n) => n * 10), writes: [write({ items })] }),
});

/** What was sent, pinned, rolled back and released, once the pipeline has let go of its connection. */
async function onlySends(log: string[]): Promise<string[]> {
  await new Promise(setImmediate);
  return log.filter((l) => !l.includes("answered"));
}

describe("pipeline", () => {
  it("sends the next batch's BEGIN and reads with the previous batch's writes and COMMIT", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    const arrivals: Promise<number>[] = [];
    const fake = fakeDatabase({
      // Two charges arrive while the first batch's reads are out, one more with the second's.
      onSend: (labels) => {
        if (labels.includes("read(1,2)")) arrivals.push(call(3), call(4));
        if (labels.includes("read(3,4)")) arrivals.push(call(5));
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    const first = await Promise.all([call(1), call(2)]);
    expect(first).toEqual([10, 20]);
    expect(await Promise.all(arrivals)).toEqual([30, 40, 50]);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: write(1,2) commit",
      "1: begin read(3,4)",
      "1: write(3,4) commit",
      "1: begin read(5)",
      "1: write(5) commit",
      "release 1",
    ]);
    // The second batch's reads went out before the first batch's COMMIT had answered.
    expect(fake.log.indexOf("1: begin read(3,4)")).toBeLessThan(fake.log.indexOf("1: answered commit"));
  });

  it("answers a batch's callers only once its COMMIT has answered", async () => {
    const fake = fakeDatabase();
    const answered: string[] = [];
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    await Promise.all(
      [1, 2].map((n) =>
        call(n).then(() => {
          answered.push(fake.log.at(-1) ?? "");
        }),
      ),
    );
    expect(answered).toEqual(["1: answered commit", "1: answered commit"]);
  });

  it("keeps batches to maxBatch items, in arrival order", async () => {
    const fake = fakeDatabase();
    const call = pipeline(fake.connect, steps, { maxBatch: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(call))).toEqual([10, 20, 30, 40, 50]);
    expect((await onlySends(fake.log)).filter((l) => l.includes("read"))).toEqual([
      "1: begin read(1,2)",
      "1: begin read(3,4)",
      "1: begin read(5)",
    ]);
  });

  it("runs each item of a batch whose write failed again alone, and the batch sent behind it again as it was", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    const later: Promise<number>[] = [];
    const fake = fakeDatabase({
      failing: ["write(1,2)", "write(2)"],
      onSend: (labels) => {
        if (labels.includes("read(1,2)")) later.push(call(3), call(4));
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    const outcomes = await Promise.allSettled([call(1), call(2)]);
    expect(outcomes[0]).toEqual({ status: "fulfilled", value: 10 });
    expect(outcomes[1]).toMatchObject({ status: "rejected", reason: new Error("write(2) failed") });
    expect(await Promise.all(later)).toEqual([30, 40]);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: write(1,2) commit",
      "1: begin read(3,4)",
      // The write's failure ended its transaction; the one sent behind it is rolled back untouched.
      "1: rollback",
      "release 1",
      "pin 2",
      "2: begin read(1)",
      "2: write(1) commit",
      "2: begin read(2)",
      "2: write(2) commit",
      "2: begin read(3,4)",
      "2: rollback",
      "release 2",
      "pin 3",
      "3: begin read(3,4)",
      "3: write(3,4) commit",
      "release 3",
    ]);
  });

  it("runs each item of a batch whose write failed again alone when nothing was sent behind it", async () => {
    const fake = fakeDatabase({ failing: ["write(1,2)"] });
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    expect(await Promise.all([call(1), call(2)])).toEqual([10, 20]);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: write(1,2) commit",
      "release 1",
      "pin 2",
      "2: begin read(1)",
      "2: write(1) commit",
      "2: begin read(2)",
      "2: write(2) commit",
      "release 2",
    ]);
  });

  it("rolls back nothing behind a failed write when the next batch's reads could not be sent", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    const later: Promise<number>[] = [];
    const fake = fakeDatabase({
      failing: ["write(1,2)"],
      unsendable: ["read(3,4)"],
      onSend: (labels) => {
        if (labels.includes("read(1,2)")) later.push(call(3), call(4));
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    expect(await Promise.all([call(1), call(2)])).toEqual([10, 20]);
    expect(await Promise.all(later)).toEqual([30, 40]);
    const sends = await onlySends(fake.log);
    expect(sends.slice(0, 4)).toEqual(["pin 1", "1: begin read(1,2)", "1: write(1,2) commit", "release 1"]);
    expect(sends.filter((l) => l.endsWith("rollback"))).toEqual([]);
  });

  it("counts a batch whose COMMIT answered ROLLBACK as failed, though every statement answered", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    const later: Promise<number>[] = [];
    const fake = fakeDatabase({
      commitAnswers: ["ROLLBACK"],
      onSend: (labels) => {
        if (labels.includes("read(1,2)")) later.push(call(3));
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    expect(await Promise.all([call(1), call(2)])).toEqual([10, 20]);
    expect(await Promise.all(later)).toEqual([30]);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: write(1,2) commit",
      "1: begin read(3)",
      "1: rollback",
      "release 1",
      "pin 2",
      "2: begin read(1)",
      "2: write(1) commit",
      "2: begin read(2)",
      "2: write(2) commit",
      "2: begin read(3)",
      "2: write(3) commit",
      "release 2",
    ]);
  });

  it("rolls back a batch whose read failed, and runs its items again alone", async () => {
    const fake = fakeDatabase({ failing: ["read(1,2)", "read(1)"] });
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    const outcomes = await Promise.allSettled([call(1), call(2)]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: new Error("read(1) failed") });
    expect(outcomes[1]).toEqual({ status: "fulfilled", value: 20 });
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: rollback",
      "release 1",
      "pin 2",
      "2: begin read(1)",
      "2: rollback",
      "release 2",
      "pin 3",
      "3: begin read(2)",
      "3: write(2) commit",
      "release 3",
    ]);
  });

  it("rolls back a batch whose decision threw, and answers the lone caller the error", async () => {
    const fake = fakeDatabase();
    const bug = new Error("a bug in decide");
    const call = pipeline(
      fake.connect,
      (items: readonly number[]) => ({
        reads: [read({ items })],
        decide: () => {
          throw bug;
        },
      }),
      { maxBatch: 10 },
    );
    await expect(call(7)).rejects.toBe(bug);
    expect(await onlySends(fake.log)).toEqual(["pin 1", "1: begin read(7)", "1: rollback", "release 1"]);
  });

  it("sends nothing behind writes that could not be sent, and rolls their transaction back", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    const later: Promise<number>[] = [];
    const fake = fakeDatabase({
      unsendable: ["write(1)"],
      onSend: (labels) => {
        if (labels.includes("read(1)")) later.push(call(2));
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    await expect(call(1)).rejects.toThrow("cannot send write(1)");
    expect(await Promise.all(later)).toEqual([20]);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1)",
      "1: rollback",
      "release 1",
      "pin 2",
      "2: begin read(2)",
      "2: write(2) commit",
      "release 2",
    ]);
  });

  it("opens no transaction for reads that could not be sent", async () => {
    const fake = fakeDatabase({ unsendable: ["read(1)"] });
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    await expect(call(1)).rejects.toEqual(new Error("cannot send read(1)"));
    expect(await onlySends(fake.log)).toEqual(["pin 1", "release 1"]);
  });

  it("answers the error when no connection can be pinned, after trying each item alone", async () => {
    const fake = fakeDatabase({ unreachable: [1, 2] });
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    const outcomes = await Promise.allSettled([call(1), call(2)]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: new Error("connection 2 refused") });
    expect(outcomes[1]).toEqual({ status: "fulfilled", value: 20 });
    expect(await onlySends(fake.log)).toEqual([
      "pin 3",
      "3: begin read(2)",
      "3: write(2) commit",
      "release 3",
    ]);
  });

  it("answers every call that waited when no connection came within the deadline, not each alone", async () => {
    const fake = fakeDatabase({ refusal: (n) => (n === 1 ? noConnectionError(15_000) : undefined) });
    const call = pipeline(fake.connect, steps, { maxBatch: 2 });
    // Three calls: two batches' worth, all waiting for the first pinning.
    const outcomes = await Promise.allSettled([call(1), call(2), call(3)]);
    expect(outcomes).toEqual([
      { status: "rejected", reason: noConnectionError(15_000) },
      { status: "rejected", reason: noConnectionError(15_000) },
      { status: "rejected", reason: noConnectionError(15_000) },
    ]);
    // One wait for a connection, not one more for each batch: the next call pins the second.
    expect(await call(4)).toBe(40);
    expect(await onlySends(fake.log)).toEqual([
      "pin 2",
      "2: begin read(4)",
      "2: write(4) commit",
      "release 2",
    ]);
  });

  it("answers the calls to run alone together too, and keeps those that came during the wait", async () => {
    let call: (n: number) => Promise<number> = async () => 0;
    let arrived: Promise<number> | undefined;
    const fake = fakeDatabase({
      refusal: (n) => {
        // The first pinning is refused: its two calls go back to run alone.
        if (n === 1) return new Error("connection 1 refused");
        if (n !== 2) return undefined;
        // While the second waits for a connection, a call arrives; the wait then runs out.
        arrived = call(3);
        return noConnectionError(15_000);
      },
    });
    call = pipeline(fake.connect, steps, { maxBatch: 10 });
    const outcomes = await Promise.allSettled([call(1), call(2)]);
    expect(outcomes).toEqual([
      { status: "rejected", reason: noConnectionError(15_000) },
      { status: "rejected", reason: noConnectionError(15_000) },
    ]);
    expect(await arrived).toBe(30);
    expect(await onlySends(fake.log)).toEqual([
      "pin 3",
      "3: begin read(3)",
      "3: write(3) commit",
      "release 3",
    ]);
  });

  it("starts again when calls come after the queue ran dry", async () => {
    const fake = fakeDatabase();
    const call = pipeline(fake.connect, steps, { maxBatch: 10 });
    expect(await call(1)).toBe(10);
    // Once the first drain has quite finished.
    await new Promise(setImmediate);
    expect(await call(2)).toBe(20);
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1)",
      "1: write(1) commit",
      "release 1",
      "pin 2",
      "2: begin read(2)",
      "2: write(2) commit",
      "release 2",
    ]);
  });
});

/**
 * Charges in a fake ledger: each decision is a spend of its own (`3#1`: item 3's first try), or a
 * repeat of the spend a COMMIT kept for the item; settled as spends.ts settles them.
 */
function ledger() {
  const kept = new Map<number, string>();
  let tries = 0;
  type Charge = { item: number; spend: string; repeated: boolean };
  const chargeSteps = (items: readonly number[]): BatchSteps<Charge> => ({
    reads: [read({ items })],
    decide: () => {
      const result = items.map((item) => {
        const earlier = kept.get(item);
        return earlier
          ? { item, spend: earlier, repeated: true }
          : { item, spend: `${item}#${++tries}`, repeated: false };
      });
      const spends = result.filter((c) => !c.repeated).map((c) => `${c.item}=${c.spend}`);
      return { result, writes: [write({ items: spends })] };
    },
  });
  const onCommitted = (values: unknown[]) => {
    for (const value of values as string[]) {
      const [item, spend] = value.split("=");
      kept.set(Number(item), spend as string);
    }
  };
  const settle = (first: Charge, again: Charge) =>
    again.repeated && again.spend === first.spend ? first : again;
  return { kept, chargeSteps, onCommitted, settle };
}

describe("pipeline, when a COMMIT's answer is lost", () => {
  it("answers each item from its first try's decision when that COMMIT went through", async () => {
    const l = ledger();
    const fake = fakeDatabase({ commitAnswers: ["LOST_AFTER"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await Promise.all([call(1), call(2)])).toEqual([
      { item: 1, spend: "1#1", repeated: false },
      { item: 2, spend: "2#2", repeated: false },
    ]);
    expect(l.kept).toEqual(
      new Map([
        [1, "1#1"],
        [2, "2#2"],
      ]),
    );
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(1,2)",
      "1: write(1=1#1,2=2#2) commit",
      "release 1",
      "pin 2",
      "2: begin read(1)",
      "2: write() commit",
      "2: begin read(2)",
      "2: write() commit",
      "release 2",
    ]);
  });

  it("answers the second try's decision when the first COMMIT kept nothing", async () => {
    const l = ledger();
    const fake = fakeDatabase({ commitAnswers: ["LOST_BEFORE"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await Promise.all([call(1), call(2)])).toEqual([
      { item: 1, spend: "1#3", repeated: false },
      { item: 2, spend: "2#4", repeated: false },
    ]);
  });

  it("without `settle`, answers what the try again decided: a repeat", async () => {
    const l = ledger();
    const fake = fakeDatabase({ commitAnswers: ["LOST_AFTER"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10 });
    expect(await call(1)).toEqual({ item: 1, spend: "1#1", repeated: true });
  });

  it("runs a lone item once more instead of failing its caller, and answers its first decision", async () => {
    const l = ledger();
    const fake = fakeDatabase({ commitAnswers: ["LOST_AFTER"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await call(7)).toEqual({ item: 7, spend: "7#1", repeated: false });
    expect(await onlySends(fake.log)).toEqual([
      "pin 1",
      "1: begin read(7)",
      "1: write(7=7#1) commit",
      "release 1",
      "pin 2",
      "2: begin read(7)",
      "2: write() commit",
      "release 2",
    ]);
  });

  it("follows the try that went through across several lost answers", async () => {
    const l = ledger();
    // The batch's COMMIT kept nothing; item 1's lone try was kept, its answer lost; then it is found.
    // Item 2's lone try, sent behind item 1's, was rolled back untouched and decides only then.
    const fake = fakeDatabase({ commitAnswers: ["LOST_BEFORE", "LOST_AFTER"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await Promise.all([call(1), call(2)])).toEqual([
      { item: 1, spend: "1#3", repeated: false },
      { item: 2, spend: "2#4", repeated: false },
    ]);
  });

  it("fails a lone item's caller when its answer is lost a second time", async () => {
    const l = ledger();
    const fake = fakeDatabase({ commitAnswers: ["LOST_BEFORE", "LOST_BEFORE"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    await expect(call(1)).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    expect((await onlySends(fake.log)).filter((line) => line.startsWith("pin"))).toEqual(["pin 1", "pin 2"]);
    // The next call is a new one: it gets its own second chance.
    const fresh = fakeDatabase({ commitAnswers: ["LOST_AFTER"], onCommitted: l.onCommitted });
    const again = pipeline(fresh.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await again(1)).toEqual({ item: 1, spend: "1#3", repeated: false });
  });

  it("fails calls whose first try may have been kept when no connection comes for their try again", async () => {
    const l = ledger();
    const fake = fakeDatabase({
      commitAnswers: ["LOST_AFTER"],
      onCommitted: l.onCommitted,
      refusal: (n) => (n === 2 ? noConnectionError(15_000) : undefined),
    });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await Promise.allSettled([call(1), call(2)])).toEqual([
      { status: "rejected", reason: noConnectionError(15_000) },
      { status: "rejected", reason: noConnectionError(15_000) },
    ]);
    // Their charges were made: a later call with the same idempotency key finds each, a repeat.
    expect(await call(1)).toEqual({ item: 1, spend: "1#1", repeated: true });
  });

  it("runs a lone item once more after a COMMIT that answered ROLLBACK though every statement answered", async () => {
    const l = ledger();
    // The write failed and the driver sent it again after the COMMIT: kept, or not.
    const kept = fakeDatabase({ commitAnswers: ["STRAY_KEPT"], onCommitted: l.onCommitted });
    const call = pipeline(kept.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await call(1)).toEqual({ item: 1, spend: "1#1", repeated: false });
    const notKept = fakeDatabase({ commitAnswers: ["ROLLBACK"], onCommitted: l.onCommitted });
    const again = pipeline(notKept.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await again(2)).toEqual({ item: 2, spend: "2#3", repeated: false });
    expect((await onlySends(notKept.log)).filter((line) => line.startsWith("pin"))).toEqual([
      "pin 1",
      "pin 2",
    ]);
  });

  it("runs the once-more try alone, not with the calls that came meanwhile", async () => {
    const l = ledger();
    let call: (n: number) => Promise<unknown> = async () => undefined;
    const later: Promise<unknown>[] = [];
    const fake = fakeDatabase({
      commitAnswers: ["LOST_AFTER"],
      onCommitted: l.onCommitted,
      onSend: (labels) => {
        if (labels.includes("write(7=7#1)")) later.push(call(8), call(9));
      },
    });
    call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    expect(await call(7)).toEqual({ item: 7, spend: "7#1", repeated: false });
    await Promise.all(later);
    const sends = await onlySends(fake.log);
    expect(sends.filter((line) => line.includes("read"))).toEqual([
      "1: begin read(7)",
      "1: begin read(8,9)",
      "2: begin read(7)",
      "2: begin read(8,9)",
    ]);
  });

  it("fails a lone item's caller at once on a write that failed on a live connection", async () => {
    const l = ledger();
    const fake = fakeDatabase({ failing: ["write(1=1#1)"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    await expect(call(1)).rejects.toThrow("write(1=1#1) failed");
    expect((await onlySends(fake.log)).filter((line) => line.startsWith("pin"))).toEqual(["pin 1"]);
  });

  it("fails a lone item's caller at once when its try again fails on a live connection", async () => {
    const l = ledger();
    // The batch's answer is lost; item 1's try again has its write refused: known, nothing kept.
    const fake = fakeDatabase({
      commitAnswers: ["LOST_BEFORE"],
      failing: ["write(1=1#3)"],
      onCommitted: l.onCommitted,
    });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    const [first, second] = await Promise.allSettled([call(1), call(2)]);
    expect(first).toMatchObject({ status: "rejected", reason: new Error("write(1=1#3) failed") });
    expect(second).toEqual({ status: "fulfilled", value: { item: 2, spend: "2#4", repeated: false } });
  });

  it("keeps nothing of a try whose failure is known, so a lost connection after it goes to the caller", async () => {
    const l = ledger();
    // The batch's write is refused (nothing kept); item 1's lone try then loses its connection
    // before writing anything: nothing of either try can have been kept, so no try again.
    const fake = fakeDatabase({
      failing: ["write(1=1#1,2=2#2)"],
      // As PostgreSQL answers COMMIT after a failed write.
      commitAnswers: ["ROLLBACK"],
      losing: ["read(1)"],
      onCommitted: l.onCommitted,
    });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    const [first, second] = await Promise.allSettled([call(1), call(2)]);
    expect(first).toMatchObject({ status: "rejected", reason: { code: "CONNECTION_CLOSED" } });
    expect(second).toEqual({ status: "fulfilled", value: { item: 2, spend: "2#3", repeated: false } });
    expect((await onlySends(fake.log)).filter((line) => line.startsWith("pin"))).toEqual([
      "pin 1",
      "pin 2",
      "pin 3",
    ]);
  });

  it("fails a lone item's caller at once when its connection is lost before anything was written", async () => {
    const l = ledger();
    const fake = fakeDatabase({ losing: ["read(1)"], onCommitted: l.onCommitted });
    const call = pipeline(fake.connect, l.chargeSteps, { maxBatch: 10, settle: l.settle });
    await expect(call(1)).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    expect((await onlySends(fake.log)).filter((line) => line.startsWith("pin"))).toEqual(["pin 1"]);
  });
});
