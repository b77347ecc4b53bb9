// All time goes through a clock so tests (and the local checkout) can move it.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move; for tests. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: Date | string = "2030-01-15T10:00:00.000Z") {
    this.#now = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(to: Date | string): void {
    this.#now = new Date(to).getTime();
  }
}
