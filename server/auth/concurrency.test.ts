import { describe, expect, it } from "vitest";
import { concurrencyLimit, hashingConcurrency, threadPoolSize } from "./concurrency.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("concurrencyLimit", () => {
  it("runs at most `limit` tasks at once, the rest in arrival order", async () => {
    const inTurn = concurrencyLimit(2);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const tasks = [0, 1, 2, 3, 4].map((n) =>
      inTurn(async () => {
        started.push(n);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => finish.push(resolve));
        running -= 1;
        return n * 10;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    finish[1]?.();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    // A newcomer while tasks wait queues behind them rather than taking the freed slot.
    const late = inTurn(async () => {
      started.push(99);
      return 990;
    });
    finish[0]?.();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (let i = 2; i < 5; i++) {
      finish[i]?.();
      await tick();
    }
    expect(await Promise.all([...tasks, late])).toEqual([0, 10, 20, 30, 40, 990]);
    expect(started).toEqual([0, 1, 2, 3, 4, 99]);
    expect(most).toBe(2);
  });

  it("frees the slot when a task fails, and passes the failure on", async () => {
    const inTurn = concurrencyLimit(1);
    await expect(inTurn(() => Promise.reject(new Error("bad hash")))).rejects.toThrow("bad hash");
    await expect(inTurn(async () => "next")).resolves.toBe("next");
  });

  it("refuses a limit that would run nothing", () => {
    expect(() => concurrencyLimit(0)).toThrow(RangeError);
    expect(() => concurrencyLimit(1.5)).toThrow(RangeError);
  });
});

describe("hashingConcurrency", () => {
  it.each([
    [2, 4, 1],
    [4, 4, 3],
    [8, 4, 3],
    [1, 4, 1],
    [16, 1, 1],
    [8, 16, 7],
  ])("%d cores, a pool of %d -> %d hashes at once", (cores, pool, expected) => {
    expect(hashingConcurrency(cores, pool)).toBe(expected);
  });
});

describe("threadPoolSize", () => {
  it("is libuv's default of 4 unless UV_THREADPOOL_SIZE sets it", () => {
    expect(threadPoolSize({})).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: "16" })).toBe(16);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: "lots" })).toBe(4);
  });
});
