// The server's time beside the browser's. Which credits are live and whether a key has expired are
// the server's judgement (the balance is computed by it); a visitor's clock may be wrong, and
// `npm run billing:advance` moves the server's. Answers that need it carry `as_of`.

/** How far the server's clock is ahead of this browser's, in ms, from an answer's `as_of` (0 without one). */
export function serverClockOffset(asOf: string | undefined, browserNow: number = Date.now()): number {
  const server = asOf === undefined ? Number.NaN : Date.parse(asOf);
  return Number.isNaN(server) ? 0 : server - browserNow;
}
