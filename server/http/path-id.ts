// The ids a path names, read in their one canonical form before any rule sees them (decision 022).
// A user's, an invoice's or a payment's id is a UUID, which RFC 9562 and PostgreSQL read in either
// case: made lower case here, it is the form the database stores, so a rule comparing ids and an
// audit entry hashed before it is stored both see what a later read returns. The other kinds (an
// API key's base62 id, a passkey's Base64URL id, a mailed token) are case-sensitive: their raw form
// is their only form.
import type { Context } from "hono";
import { canonicalUuid } from "../accounts/users.ts";
import type { PATH_IDS } from "./openapi.ts";

export function pathId(c: Context, name: string, kind: keyof typeof PATH_IDS): string {
  const raw = c.req.param(name) ?? "";
  return kind === "uuid" ? canonicalUuid(raw) : raw;
}
