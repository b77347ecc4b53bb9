// Hono's typed context for the API: what middleware puts on `c.var`.
import type { AccessTokenClaims } from "../auth/access-tokens.ts";
import type { ServiceKeyRow, UserRow } from "../db/schema/index.ts";
import type { ActingOrg } from "../orgs/acting-org.ts";

export interface AppEnv {
  Variables: {
    /** The authenticated user, loaded fresh from the database (set by requireUser). */
    user: UserRow;
    /** The claims of the access token the request came with (set by requireUser). */
    claims: AccessTokenClaims;
    /** The authenticated service key (set by requireService). */
    service: ServiceKeyRow;
    /** The organisation the call acts on and the caller's role there (set by actingOrg). */
    org: ActingOrg;
  };
}
