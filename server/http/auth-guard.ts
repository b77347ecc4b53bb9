// Bearer authentication and role checks. The token is only the key: the user, their role and their
// token version are read from the database on every request, so a password reset (version bump),
// a role change or a deleted account takes effect at once, whatever old tokens still say.
import type { MiddlewareHandler } from "hono";
import { REAUTH_WINDOW_SECONDS, reauthRequiredSchema } from "../../contract/account.ts";
import { DETAIL } from "../../contract/messages.ts";
import { reauthNeeds, type SignInFactors } from "../accounts/staff-factors.ts";
import { findUserById } from "../accounts/users.ts";
import { type AccessTokenClaims, type AccessTokens, provesTwoFactors } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import type { Role, UserRow } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./errors.ts";
import { ANSWERS_TOO_MANY, type RefusalWithFields, type Registry, schemaRef, withFields } from "./openapi.ts";
import { enforceLimits, type RateLimiter } from "./rate-limit.ts";

/** The refusal of a request whose session is not (or no longer) valid. */
export const UNAUTHORIZED = () =>
  new ApiError(401, DETAIL.couldNotValidateCredentials, { "WWW-Authenticate": "Bearer" });

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i);
  return match?.[1];
}

interface GuardDeps {
  db: Db;
  accessTokens: AccessTokens;
}

/**
 * What `load` reads for the user an `Authorization` header's token stands for; a 401 for no token,
 * a token that fails verification, an unknown user, or a token older than the user's token version.
 */
export async function authenticate<T extends { user: Pick<UserRow, "tokenVersion" | "disabledAt"> }>(
  deps: GuardDeps,
  authorization: string | undefined,
  load: (db: Db, userId: string) => Promise<T | undefined>,
): Promise<T & { claims: AccessTokenClaims }> {
  const token = bearerToken(authorization);
  if (!token) throw UNAUTHORIZED();
  // verify() also refuses a token signed out with POST /v1/logout (in memory, no round trip).
  const claims = await deps.accessTokens.verify(token);
  if (!claims) throw UNAUTHORIZED();
  const found = await load(deps.db, claims.sub);
  // Sign out everywhere, a password change or reset raise the token version.
  if (!found || found.user.tokenVersion !== claims.ver) throw UNAUTHORIZED();
  // Read with the user on every request: a disabled account is refused on every instance at once.
  if (found.user.disabledAt !== null) throw new ApiError(403, DETAIL.accountDisabled);
  return { ...found, claims };
}

const userOnly = async (db: Db, id: string) => {
  const user = await findUserById(db, id);
  return user ? { user } : undefined;
};

export function requireUser(deps: GuardDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { user, claims } = await authenticate(deps, c.req.header("authorization"), userOnly);
    c.set("user", user);
    c.set("claims", claims);
    await next();
  };
}

/**
 * ACCOUNT-SECURITY.md: staff act only with a token that shows two factors or a passkey, on
 * /v1/admin and on the one staff call outside it (the admin's manual charge).
 */
export function refuseStaffWithoutTwoFactors(claims: Pick<AccessTokenClaims, "amr">): void {
  if (!provesTwoFactors(claims.amr)) throw new ApiError(403, DETAIL.staffMfaRequired);
}

interface ShownFactorDeps {
  twoFactor: { asksAtSignIn(userId: string): Promise<boolean> };
}

/** How the OpenAPI document describes requireShownSecondFactor's 403, before requireRecentAuth's. */
const SHOWN_FACTOR_REFUSAL = `"${DETAIL.secondFactorSignInRequired}" when signing in asks the account for a second factor (an authenticator app is on; for staff, any second factor) and the token shows the password alone (\`amr\` without \`mfa\` or \`hwk\`); or `;

/**
 * After requireUser, on the calls that add a second factor (an authenticator app, a passkey):
 * when signing in asks the account for a second factor (two-factor sign-in on; for staff, any
 * second factor), the token must show one (`amr` `mfa` or `hwk`), or 403. A token that shows only
 * the password must not add the factor that then stands in for the one it never gave (decision 046).
 */
export function requireShownSecondFactor(deps: ShownFactorDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!provesTwoFactors(c.var.claims.amr) && (await deps.twoFactor.asksAtSignIn(c.var.user.id))) {
      throw new ApiError(403, DETAIL.secondFactorSignInRequired);
    }
    await next();
  };
}

/**
 * The guards of a call that adds a second factor (an app's setup or confirmation, a passkey's
 * options or the passkey), and their 403 as the document describes it. requireShownSecondFactor
 * runs before the re-authentication, which would not change the token's amr (decision 046).
 */
export function addingFactor(
  deps: GuardDeps & ShownFactorDeps & RecentAuthDeps & { limiter: RateLimiter },
  registry: Registry,
) {
  return {
    guards: [
      requireUser(deps),
      requireShownSecondFactor(deps),
      requireRecentAuth(deps),
      limitWrites(deps.limiter),
    ] as const,
    refusal: reauthRefusal(registry, SHOWN_FACTOR_REFUSAL),
  };
}

/** After requireUser: only the listed roles pass. */
export function requireRole(...roles: Role[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!roles.includes(c.var.user.role)) throw new ApiError(403, DETAIL.notEnoughPermissions);
    await next();
  };
}

/**
 * After requireUser: counts a signed-in write (checkout, plan change, cancellation, key creation)
 * against the user's per-minute budget; 429 with Retry-After once it is spent.
 */
export function limitWrites(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    await enforceLimits(limiter, [["accountWrite", c.var.user.id]]);
    await next();
  };
  // Its 429 is in the document of every route it guards (addRoute).
  return Object.assign(middleware, { [ANSWERS_TOO_MANY]: true });
}

/** How the OpenAPI document describes requireRecentAuth's 403. */
export const REAUTH_REFUSAL = `"${DETAIL.reauthRequired}" with \`reauth_required: true\`, \`methods\` (\`password\`, and \`webauthn\` when the account has a passkey; \`webauthn\` alone for a staff account whose only second factor is a passkey) and \`code_required\` (true when the account has two-factor sign-in on: the password then needs a \`code\` beside it) when the password was entered more than 10 minutes ago (POST /v1/reauth, then retry)`;

/** requireRecentAuth's 403 in the document, its ReauthRequired body beside `{detail}`; `before` names other 403s. */
export function reauthRefusal(registry: Registry, before = ""): RefusalWithFields {
  return withFields(
    `${before}${REAUTH_REFUSAL}`,
    schemaRef(registry, "ReauthRequired", reauthRequiredSchema),
  );
}

interface RecentAuthDeps {
  clock: Clock;
  twoFactor: { factors(userId: string): Promise<SignInFactors> };
}

/** Whether the token's password (or passkey) was entered within the last 10 minutes. */
export function isRecentAuth(clock: Clock, claims: Pick<AccessTokenClaims, "auth_time">): boolean {
  return Math.floor(clock.now().getTime() / 1000) - claims.auth_time <= REAUTH_WINDOW_SECONDS;
}

/**
 * The 403 that asks for re-authentication, with what may answer it, read only on this refusal so
 * the portal's dialog can offer the passkey, or ask for the code, without asking the server first.
 */
export async function reauthRequired(deps: RecentAuthDeps, userId: string): Promise<ApiError> {
  const factors = await deps.twoFactor.factors(userId);
  const needs = reauthNeeds(factors);
  // A staff account with a passkey alone is not offered the password (decision 046).
  const methods =
    needs === "passkey" ? ["webauthn"] : factors.passkey ? ["password", "webauthn"] : ["password"];
  return new ApiError(
    403,
    DETAIL.reauthRequired,
    {},
    { reauth_required: true, methods, code_required: needs === "code" },
  );
}

/**
 * After requireUser: a sensitive action (ACCOUNT-SECURITY.md: creating an API key, two-factor and
 * passkey changes, e-mail and password changes, export, deletion) needs a password (or a passkey)
 * entered within the last 10 minutes: the token's auth_time. Otherwise 403 with
 * `reauth_required: true`; POST /v1/reauth answers a fresh token to retry with.
 */
export function requireRecentAuth(deps: RecentAuthDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isRecentAuth(deps.clock, c.var.claims)) throw await reauthRequired(deps, c.var.user.id);
    await next();
  };
}
