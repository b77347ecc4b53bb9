// The client's address for rate limits and logs. X-Forwarded-For is only believed with
// TRUST_PROXY, and then only its last entry: the one our own proxy appended (anything to its left
// was sent by the client and can be forged).
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

export function lastForwardedFor(header: string | undefined): string | undefined {
  const last = header?.split(",").at(-1)?.trim();
  return last || undefined;
}

export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = lastForwardedFor(c.req.header("x-forwarded-for"));
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // In-process requests (app.request() in tests) have no socket.
    return "unknown";
  }
}
