// The organisation a call acts on, as the request context carries it (server/http/app-env.ts). A
// module of its own, with no imports but the role's type, so that the context's type and the
// middleware that sets it (membership.ts) do not import each other.
import type { OrgRole } from "../../contract/org-roles.ts";

export interface ActingOrg {
  id: string;
  /** Null for a personal organisation. */
  name: string | null;
  personal: boolean;
  /** The caller's role in it. */
  role: OrgRole;
  /** The caller's monthly cap there, in milli-credits; null: none. */
  monthlyCreditCap: number | null;
}
