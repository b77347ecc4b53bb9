// Changing the e-mail address (ACCOUNT-SECURITY.md, accounts/email-change.ts). POST
// /v1/users/me/email mails a link to the new address (a password from the last 10 minutes
// needed); POST /v1/user/confirm-email follows a link, from any browser: the change itself, or the
// old address's way back. GET /v1/users/me/email/revert-review lists, after a way back, what was
// added to the account while the address was changed (issue 30). GET /v1/users/me/email answers
// that list and the change waiting for its link, which DELETE /v1/users/me/email/pending cancels.
import { OpenAPIHono } from "@hono/zod-openapi";
import {
  confirmEmailChangeSchema,
  emailRequestSchema,
  revertUnconfirmedSchema,
} from "../../../contract/account.ts";
import { type RevertReview, revertReviewSchema } from "../../../contract/email-revert.ts";
import { type EmailState, emailStateSchema } from "../../../contract/email-state.ts";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { createEmailChanges } from "../../accounts/email-change.ts";

import type { AppEnv } from "../../http/app-env.ts";
import {
  limitWrites,
  reauthRefusal,
  requireRecentAuth,
  requireUser,
  UNAUTHORIZED,
} from "../../http/auth-guard.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  PUBLIC,
  SIGNED_IN,
  schemaRef,
  withFields,
} from "../../http/openapi.ts";
import { enforceLimits, mailboxLimits } from "../../http/rate-limit.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody, refuseUnusableAddress } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

type EmailChanges = ReturnType<typeof createEmailChanges>;

type RevertReviewFound = Awaited<ReturnType<EmailChanges["revertReview"]>>;

export function emailChangeRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const changes = createEmailChanges(deps);
  addStartRoute(app, deps, changes);
  addConfirmRoute(app, deps, changes);
  addRevertReviewRoute(app, deps, changes);
  addPendingReadRoute(app, deps, changes);
  addPendingCancelRoute(app, deps, changes);
  return app;
}

/** POST /v1/users/me/email: start a change, a link mailed to the new address. */
function addStartRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps, changes: EmailChanges): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/users/me/email",
      operationId: "requestEmailChange",
      tags: ["account"],
      summary: "Change the e-mail address: a link to the new address, which takes over when it is followed",
      security: SIGNED_IN,
      request: {
        body: { content: jsonContent(schemaRef(registry, "EmailRequest", emailRequestSchema, "input")) },
      },
      responses: {
        202: detailAnswer(registry, `"${DETAIL.emailChangeSent}"`),
        ...errorResponses(registry, {
          400: `"${DETAIL.emailSame}"`,
          401: "No valid access token",
          403: reauthRefusal(registry),
          409: `"${DETAIL.emailExists}"`,
          422: `Not an e-mail address, or one from a disposable-mail service ("${VALIDATION.emailDisposable}") or in a top-level domain that never receives mail, .invalid or .localhost ("${VALIDATION.emailReserved}")`,
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many signed-in writes, or too many mails to this address in an hour or a day (reset, verification and change links together)`,
        }),
      },
    },
    requireUser(deps),
    requireRecentAuth(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      const body = await parseJsonBody(c, emailRequestSchema);
      refuseUnusableAddress(body.email);
      // The link is a mail to an address the caller chose: it counts against that address's hour
      // and day with the reset and verification mails (decision 024), before anything is stored.
      await enforceLimits(deps.limiter, mailboxLimits(body.email));
      const result = await changes.request(user, body.email, originOf(c, deps.trustProxy));
      if (!result.ok) {
        if (result.reason === "signedOut") throw UNAUTHORIZED();
        throw result.reason === "same"
          ? new ApiError(400, DETAIL.emailSame)
          : new ApiError(409, DETAIL.emailExists);
      }
      deps.securityMails.emailChangeLink(user, result.email, result.token);
      return c.json({ detail: DETAIL.emailChangeSent }, 202);
    },
  );
}

/** POST /v1/user/confirm-email: a link followed, the change itself or the old address's way back. */
function addConfirmRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps, changes: EmailChanges): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/user/confirm-email",
      operationId: "confirmEmailChange",
      security: PUBLIC,
      tags: ["account"],
      summary: "Follow an e-mail change link: the new address takes over, or the old one comes back",
      request: {
        body: {
          content: jsonContent(
            schemaRef(registry, "ConfirmEmailChange", confirmEmailChangeSchema, "input", {
              example: { token: "the token from the link", revert: true },
            }),
          ),
        },
      },
      responses: {
        200: detailAnswer(
          registry,
          `"${DETAIL.emailChanged}", or "${DETAIL.emailChangeReverted}" for the old address's link with \`revert: true\``,
        ),
        ...errorResponses(registry, {
          400: `"${DETAIL.tokenInvalidOrExpired}" (also for the new address's link sent with \`revert: true\`)`,
          409: withFields(
            `"${DETAIL.emailExists}": another account took the address meanwhile; or "${DETAIL.emailRevertUnconfirmed}" with \`revert_required: true\`: the old address's way back, sent without \`revert: true\`, did nothing and still works`,
            schemaRef(registry, "RevertUnconfirmed", revertUnconfirmedSchema),
          ),
          422: "No token",
          429: `"${DETAIL.tooManyRequests}", with Retry-After`,
        }),
      },
    },
    async (c) => {
      const body = await parseJsonBody(c, confirmEmailChangeSchema);
      await enforceLimits(deps.limiter, [["emailIp", clientIp(c, deps.trustProxy)]]);
      const origin = originOf(c, deps.trustProxy);
      const result = await changes.confirm(body.token, origin, body.revert === true);
      if (!result.ok) {
        if (result.reason === "unconfirmed") {
          throw new ApiError(409, DETAIL.emailRevertUnconfirmed, {}, { revert_required: true });
        }
        throw result.reason === "taken"
          ? new ApiError(409, DETAIL.emailExists)
          : new ApiError(400, DETAIL.tokenInvalidOrExpired);
      }
      if (result.kind === "revert") return c.json({ detail: DETAIL.emailChangeReverted }, 200);
      if (result.revertToken) {
        deps.securityMails.emailChanged(
          result.user,
          { oldEmail: result.previousEmail, newEmail: result.user.email, revertToken: result.revertToken },
          deps.clock.now(),
          origin.ip,
        );
      }
      return c.json({ detail: DETAIL.emailChanged }, 200);
    },
  );
}

/** GET /v1/users/me/email/revert-review: after a way back, what was added meanwhile. */
function addRevertReviewRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps, changes: EmailChanges): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "get",
      path: "/users/me/email/revert-review",
      operationId: "getEmailRevertReview",
      tags: ["account"],
      summary:
        "After the old address changed the e-mail back: the passkeys, authenticator and API keys added while it was changed",
      description:
        "Lists what was added from 24 hours before the change was asked for until the old address's link changed it back, and is still on the account, for 30 days after that link was followed. Remove them with the usual calls (DELETE /v1/users/me/passkeys/{id}, DELETE /v1/users/me/mfa/totp, DELETE /v1/api-keys/{id} with X-Organization set to the key's `organization.id`).",
      security: SIGNED_IN,
      responses: {
        200: {
          description: "`review`: what was added meanwhile, or null when there is nothing to review",
          content: jsonContent(schemaRef(registry, "EmailRevertReview", revertReviewSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => c.json({ review: presentReview(await changes.revertReview(c.var.user.id)) }, 200),
  );
}

/** GET /v1/users/me/email: the change waiting for its link, and the review after a way back. */
function addPendingReadRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps, changes: EmailChanges): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "get",
      path: "/users/me/email",
      operationId: "getEmailState",
      tags: ["account"],
      summary: "The change of e-mail address waiting for its link, and the review after a way back",
      description:
        "`pending_change`: the address asked for with POST /v1/users/me/email and when the link mailed to it expires, or null; cancel it with DELETE /v1/users/me/email/pending. `revert_review`: as GET /v1/users/me/email/revert-review's `review`, so that /profile/security reads both at once.",
      security: SIGNED_IN,
      responses: {
        200: {
          description: "The pending change (or null) and the review (or null)",
          content: jsonContent(schemaRef(registry, "EmailState", emailStateSchema)),
        },
        ...errorResponses(registry, { 401: "No valid access token" }),
      },
    },
    requireUser(deps),
    async (c) => {
      const user = c.var.user;
      const [pending, review] = await Promise.all([changes.pending(user), changes.revertReview(user.id)]);
      const answer: EmailState = {
        pending_change: pending
          ? { email: pending.email, expires_at: pending.expiresAt.toISOString() }
          : null,
        revert_review: presentReview(review),
      };
      return c.json(answer, 200);
    },
  );
}

/** DELETE /v1/users/me/email/pending: cancel the change waiting for its link. */
function addPendingCancelRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps, changes: EmailChanges): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "delete",
      path: "/users/me/email/pending",
      operationId: "cancelEmailChange",
      tags: ["account"],
      summary: "Cancel the change of e-mail address waiting for its link: the link stops working",
      security: SIGNED_IN,
      responses: {
        200: detailAnswer(registry, `"${DETAIL.emailChangeCancelled}"`),
        ...errorResponses(registry, {
          401: "No valid access token",
          404: `"${DETAIL.emailChangeNotPending}": none was asked for, or its link was followed, expired or cancelled`,
        }),
      },
    },
    // No recent password (requireRecentAuth): cancelling only takes a possibility away, never
    // gives one. The owner who spots a typo, or an intruder's change, must be able to stop it at
    // once, even from a session older than 10 minutes; an intruder who cancels the owner's change
    // gains nothing (the owner asks again, and the address stays the owner's meanwhile).
    requireUser(deps),
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      if (!(await changes.cancel(user, originOf(c, deps.trustProxy)))) {
        throw new ApiError(404, DETAIL.emailChangeNotPending);
      }
      return c.json({ detail: DETAIL.emailChangeCancelled }, 200);
    },
  );
}

/** The review after a way back, as the API answers it (null: nothing to review). */
function presentReview(found: RevertReviewFound): RevertReview | null {
  if (!found) return null;
  const iso = (at: Date) => at.toISOString();
  return {
    since: iso(found.since),
    changed_at: iso(found.changedAt),
    reverted_at: iso(found.revertedAt),
    passkeys: found.passkeys.map((p) => ({ id: p.id, name: p.name, created_at: iso(p.createdAt) })),
    two_factor_on_at: found.twoFactorOnAt && iso(found.twoFactorOnAt),
    api_keys: found.apiKeys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      created_at: iso(k.createdAt),
      organization: { id: k.orgId, name: k.orgName },
    })),
  };
}
