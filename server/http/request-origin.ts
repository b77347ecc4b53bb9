// Where a request came from, as a security event records it: the client address (clientIp's rules)
// and the browser's User-Agent.
import type { Context } from "hono";
import { type RequestOrigin, requestOrigin } from "../audit/security-events.ts";
import { clientIp } from "./client-ip.ts";

export function originOf(c: Context, trustProxy: boolean): RequestOrigin {
  return requestOrigin(clientIp(c, trustProxy), c.req.header("user-agent"));
}
