// What the /v1 routes are built from (assembled by createApp).

import type { Logger } from "pino";
import type { Accounts } from "../accounts/accounts.ts";
import type { Passkeys } from "../accounts/passkeys.ts";
import type { SecurityMails } from "../accounts/security-mails.ts";
import type { TwoFactor } from "../accounts/two-factor.ts";
import type { LowBalanceAlerts } from "../alerts/low-balance.ts";
import type { MemberCapAlerts } from "../alerts/member-cap.ts";
import type { IntrospectionCache } from "../api-access/introspection-cache.ts";
import type { LastUsed } from "../api-access/last-used.ts";
import type { ServiceKeyCheck } from "../api-access/service-keys.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { CodeGuessingAlert } from "../auth/code-guessing.ts";
import type { TokenRevocations } from "../auth/token-revocations.ts";
import type { AutoTopUpEngine } from "../billing/auto-top-up/engine.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/types.ts";
import type { TierLookup } from "../domain/subscription.ts";
import type { RateLimiter } from "../http/rate-limit.ts";
import type { OrgMails } from "../orgs/org-mails.ts";

export interface ApiDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  accounts: Accounts;
  accessTokens: AccessTokens;
  /** Signs access tokens out one at a time (POST /v1/logout). */
  revocations: TokenRevocations;
  /** Two-factor sign-in: setup, recovery codes, the code step of login. */
  twoFactor: TwoFactor;
  /** Passkeys: passwordless sign-in and a second factor. */
  passkeys: Passkeys;
  limiter: RateLimiter;
  /** Names the tier of a product id in the User answer (the catalogue being sold). */
  tiers: TierLookup;
  /** Records when API keys and service keys were last used (at most one write a minute per key). */
  lastUsed: LastUsed;
  /** Mails the account's owner about security events (a new API key). */
  securityMails: SecurityMails;
  /** Mails the owner once an hour's wrong second factors pass the limit (auth/code-guessing.ts). */
  codeGuessingAlert: CodeGuessingAlert;
  /** Mails a user whose balance a charge took below their alert's threshold. */
  lowBalance: LowBalanceAlerts;
  /** Mails a member and their organisation's owners and managers about the member's monthly cap. */
  memberCaps: MemberCapAlerts;
  /** Mails organisations' invitation links. */
  orgMails: OrgMails;
  /** Auto top-up (billing/auto-top-up/): consume nudges it; its routes and the console turn it off. */
  autoTopUp: AutoTopUpEngine;
  /** Active API key introspections for up to 1 s, dropped on every change (decision 034). */
  introspectionCache?: IntrospectionCache | undefined;
  /** Checks the generation service's keys. */
  serviceKeys: ServiceKeyCheck;
  /** Accept consume's `at` (simulated history, npm run usage:simulate): development only. */
  allowBackdatedCharges: boolean;
  /** Believe X-Forwarded-For for the client address (one trusted proxy in front). */
  trustProxy: boolean;
}
