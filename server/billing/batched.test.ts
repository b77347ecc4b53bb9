import { describe, expect, it } from "vitest";
import { batched } from "./batched.ts";

function recorder() {
  const batches: number[][] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  return {
    batches,
    /** The next batch waits until `open()`. */
    hold() {
      gate = new Promise((done) => {
        release = done;
      });
    },
    open() {
      release?.();
      gate = undefined;
    },
    async run(items: readonly number[]) {
      batches.push([...items]);
      if (gate) await gate;
      return items.map((n) => n * 10);
    },
  };
}

describe("batched", () => {
  it("runs the calls of one event-loop turn as one batch and answers each caller its own result", async () => {
    const r = recorder();
    const call = batched((items: readonly number[]) => r.run(items), { maxBatch: 10 });
    const answers = await Promise.all([call(1), call(2), call(3)]);
    expect(answers).toEqual([10, 20, 30]);
    expect(r.batches).toEqual([[1, 2, 3]]);
  });

  it("collects the calls that arrive while a batch runs into the next one, in arrival order", async () => {
    const r = recorder();
    const call = batched((items: readonly number[]) => r.run(items), { maxBatch: 10 });
    r.hold();
    const first = call(1);
    await new Promise((done) => setImmediate(done));
    const later = [call(2), call(3), call(4)];
    r.open();
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it("never puts more than maxBatch items in one batch", async () => {
    const r = recorder();
    const call = batched((items: readonly number[]) => r.run(items), { maxBatch: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(call))).toEqual([10, 20, 30, 40, 50]);
    expect(r.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("runs the items of a failed batch one by one, so only the caller whose item fails gets the error", async () => {
    const seen: number[][] = [];
    const call = batched(
      async (items: readonly number[]) => {
        seen.push([...items]);
        if (items.includes(2)) throw new Error(`bad item in ${items.join(",")}`);
        return items.map((n) => n * 10);
      },
      { maxBatch: 10 },
    );
    const settled = await Promise.allSettled([call(1), call(2), call(3)]);
    expect(settled).toEqual([
      { status: "fulfilled", value: 10 },
      { status: "rejected", reason: new Error("bad item in 2") },
      { status: "fulfilled", value: 30 },
    ]);
    expect(seen).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it("keeps working after a failure", async () => {
    let fail = true;
    const call = batched(
      async (items: readonly number[]) => {
        if (fail) throw new Error("down");
        return [...items];
      },
      { maxBatch: 10 },
    );
    await expect(call(1)).rejects.toThrow("down");
    fail = false;
    expect(await call(2)).toBe(2);
  });
});
