// RFC 7662 introspection for the generation service: what a credential a customer's program sent
// stands for right now. Anything that is not valid at this moment (unknown, malformed, revoked,
// expired, a token older than a password reset, a deleted account) is the same `{active: false}`,
// so the answer never helps anyone guess. An API key's active answer may be kept up to 1 s
// (introspection-cache.ts, decision 034); an access token's never is.
import type { Introspection } from "../../contract/api-keys.ts";
import { FEATURE_IDS } from "../../contract/credit-costs.ts";
import { concurrentRequestsOf } from "../../contract/plan-limits.ts";
import { isUserId } from "../accounts/users.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import { billingAt, findUserWithBilling, type UserWithBilling } from "../billing/user-billing.ts";
import type { Db } from "../db/types.ts";
import { fromMillicredits } from "../domain/ledger.ts";
import type { TierLookup } from "../domain/subscription.ts";
import { authenticateApiKeyWithHolder } from "./api-keys.ts";
import type { IntrospectionCache, KeyIntrospection } from "./introspection-cache.ts";
import { parseKey } from "./key-format.ts";
import type { LastUsed } from "./last-used.ts";

export const INACTIVE: Introspection = Object.freeze({ active: false as const });

export interface IntrospectionDeps {
  db: Db;
  accessTokens: AccessTokens;
  tiers: TierLookup;
  lastUsed: LastUsed;
  /** Active API key answers for up to 1 s (decision 034); absent: every call reads. */
  introspectionCache?: IntrospectionCache | undefined;
}

const toSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** An access token's holder: the user and their personal organisation (its id is theirs). */
function holderFields(found: UserWithBilling, now: Date, tiers: TierLookup) {
  return {
    sub: found.user.id,
    username: found.user.username,
    role: found.user.role,
    ...planFields(found.grants, found.subscription, now, tiers),
    org_id: found.user.id,
  };
}

/** The plan, its limits and the balance of a billing account at `now`. */
function planFields(
  grants: UserWithBilling["grants"],
  stored: UserWithBilling["subscription"],
  now: Date,
  tiers: TierLookup,
) {
  const billing = billingAt(grants, stored, now, tiers);
  const productId = billing.subscription?.product_id;
  const tier = productId ? tiers(productId) : undefined;
  return {
    plan: tier?.key ?? "FREE",
    limits: { concurrent_requests: concurrentRequestsOf(tier?.key) },
    credit_balance: billing.credit_balance,
  };
}

/**
 * An API key stands for its organisation (`sub`, the plan, limits and balance are the
 * organisation's; a personal key's `sub` is its user's id, as before organisations) and for the
 * member who made it, with their monthly cap (ORGANISATIONS.md).
 */
async function readApiKey(
  deps: IntrospectionDeps,
  token: string,
  now: Date,
): Promise<KeyIntrospection | undefined> {
  const found = await authenticateApiKeyWithHolder(deps.db, token, now);
  if (!found) return undefined;
  const { key, org, member, usedThisMonth: used } = found;
  const capped = member !== null && member.cap !== null;
  const answer: Introspection = {
    active: true,
    token_type: "api_key",
    sub: org.id,
    username: member?.username ?? org.name ?? "",
    role: "user",
    ...planFields(found.grants, found.subscription, now, deps.tiers),
    org_id: org.id,
    member_id: member?.id ?? null,
    member_monthly_credit_cap: capped ? fromMillicredits(member.cap ?? 0) : null,
    member_credits_used_this_month: capped ? fromMillicredits(member.usedThisMonth) : null,
    key_id: key.id,
    ...(key.expiresAt ? { exp: toSeconds(key.expiresAt) } : {}),
    monthly_credit_limit: key.monthlyCreditLimit === null ? null : fromMillicredits(key.monthlyCreditLimit),
    credits_used_this_month: fromMillicredits(used),
    features: key.features ?? [...FEATURE_IDS],
  };
  return { answer, keyId: key.id, expiresAt: key.expiresAt };
}

/** A kept answer when the cache has one that holds, else the read; either way the key was used now. */
async function introspectApiKey(deps: IntrospectionDeps, token: string, now: Date): Promise<Introspection> {
  const read = () => readApiKey(deps, token, now);
  const found = await (deps.introspectionCache ? deps.introspectionCache.answer(token, now, read) : read());
  if (!found) return INACTIVE;
  deps.lastUsed.touch("api", found.keyId, now);
  return found.answer;
}

async function introspectAccessToken(
  deps: IntrospectionDeps,
  token: string,
  now: Date,
): Promise<Introspection> {
  const claims = await deps.accessTokens.verify(token);
  if (!claims || !isUserId(claims.sub)) return INACTIVE;
  const found = await findUserWithBilling(deps.db, claims.sub);
  // A password reset raises the token version: older tokens stop being valid at once.
  if (!found || found.user.tokenVersion !== claims.ver || found.user.disabledAt !== null) return INACTIVE;
  return {
    active: true,
    token_type: "access_token",
    ...holderFields(found, now, deps.tiers),
    exp: claims.exp,
    features: [...FEATURE_IDS],
  };
}

export async function introspect(deps: IntrospectionDeps, token: string, now: Date): Promise<Introspection> {
  const parsed = parseKey(token);
  if (parsed) return parsed.kind === "api" ? introspectApiKey(deps, token, now) : INACTIVE;
  return introspectAccessToken(deps, token, now);
}
