// The client's address for rate limits and logs. X-Forwarded-For is only believed with
// TRUST_PROXY, and then only its last entry: the one our own proxy appended (anything to its left
// was sent by the client and can be forged).
import { isIPv4, isIPv6 } from "node:net";
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

/**
 * The key every per-address limit counts a client under: an IPv4 address as it is, an IPv6 address
 * by its /64 network (one customer line or host gets a whole /64, so counting each of its 2^64
 * addresses apart would give one attacker endless fresh counters), an IPv4-mapped IPv6 address
 * (::ffff:192.0.2.1, what a dual-stack socket reports) as its IPv4 address. Anything that is not
 * an address ("unknown") stays as it is.
 */
export function addressKey(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return ip;
  const groups = ipv6Groups(bare.toLowerCase());
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with "::" and a dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  const dotted = address.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  const hex = dotted
    ? address.replace(
        dotted[0],
        `${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`,
      )
    : address;
  const [head = "", tail] = hex.split("::");
  const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const before = parse(head);
  const after = tail === undefined ? [] : parse(tail);
  return [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
}
