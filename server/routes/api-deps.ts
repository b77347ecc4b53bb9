// What the /v1 routes are built from (assembled by createApp).
import type { Logger } from "pino";
import type { Accounts } from "../accounts/accounts.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/types.ts";
import type { TierLookup } from "../domain/subscription.ts";
import type { RateLimiter } from "../http/rate-limit.ts";

export interface ApiDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  accounts: Accounts;
  accessTokens: AccessTokens;
  limiter: RateLimiter;
  /** Names the tier of a product id in the User answer (the catalogue being sold). */
  tiers: TierLookup;
  /** Believe X-Forwarded-For for the client address (one trusted proxy in front). */
  trustProxy: boolean;
}
