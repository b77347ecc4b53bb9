// POST /v1/credits/consume: the generation service charges a user's credits by feature (metering,
// with a service key or an admin token), or an admin charges a manual amount. Once per idempotency
// key either way; a charge that crosses the user's low-balance threshold mails them.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import * as z from "zod/mini";
import { ADMIN_TEXT } from "../../../contract/admin-rules.ts";
import {
  consumeAnswerSchema,
  consumeFeatureRequestSchema,
  ISO_DATE_TIME_EXPECTED,
} from "../../../contract/api-keys.ts";
import { consumeRequestSchema } from "../../../contract/billing.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { USAGE_MAX_DAYS } from "../../../contract/usage.ts";
import { canonicalUuid, findUserById } from "../../accounts/users.ts";
import type { LowBalanceAlerts } from "../../alerts/low-balance.ts";
import type { MemberCapAlerts } from "../../alerts/member-cap.ts";
import { claimsServiceKey } from "../../api-access/key-format.ts";
import { chargeFeature, type FeatureCharge, featureSpend } from "../../api-access/metering.ts";
import type { AutoTopUpEngine } from "../../billing/auto-top-up/engine.ts";
import type { Billing } from "../../billing/service.ts";
import type { MemberCapEvent, SpendRefusal } from "../../billing/spends.ts";
import type { Db } from "../../db/types.ts";
import { billingError } from "../../domain/billing-errors.ts";
import { fromMillicredits, toMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { authenticate, bearerToken, refuseStaffWithoutTwoFactors } from "../../http/auth-guard.ts";
import { ApiError, RequestValidationError } from "../../http/errors.ts";
import {
  addRoute,
  BEARER_SCHEME,
  errorResponses,
  jsonContent,
  SERVICE_KEY_SCHEME,
  schemaRef,
} from "../../http/openapi.ts";
import { enforceLimits } from "../../http/rate-limit.ts";
import { authenticateService } from "../../http/service-auth.ts";
import { parseJsonBody, parseWith } from "../../http/validation.ts";
import { chargeAsStaff } from "../../operations/staff-charges.ts";
import { actorOf } from "../admin/admin-deps.ts";
import type { ApiDeps } from "../api-deps.ts";

type ChargeOutcome =
  | {
      ok: true;
      userId: string;
      balanceAfter: number;
      amount: number;
      spendId: string;
      repeated: boolean;
      lowBalanceCrossed: number | null;
      memberCapNearing?: MemberCapEvent | null;
      autoTopUpDue?: boolean;
    }
  | { ok: false; reason: SpendRefusal; memberCap?: MemberCapEvent; autoTopUpOrg?: string };

interface ChargeAlerts {
  lowBalance: LowBalanceAlerts;
  memberCaps: MemberCapAlerts;
  autoTopUp: Pick<AutoTopUpEngine, "nudge">;
}

/**
 * What a charge sets off besides its answer (after the commit, in the background): one that took
 * the balance below the alert threshold mails the organisation; one that took a member past 80 %
 * of their cap, or was refused by it, mails the member and the owners and managers; one that left
 * the balance below the auto top-up threshold, or was refused for credits, nudges auto top-up. Both
 * consume forms end here.
 */
function afterCharge(result: ChargeOutcome, alerts: ChargeAlerts): ChargeOutcome {
  if (result.ok && result.lowBalanceCrossed !== null) {
    alerts.lowBalance.crossed(result.userId, result.lowBalanceCrossed, result.balanceAfter);
  }
  if (result.ok && result.memberCapNearing) alerts.memberCaps.nearing(result.memberCapNearing);
  if (!result.ok && result.memberCap) alerts.memberCaps.reached(result.memberCap);
  // Below the auto top-up threshold: queued and charged in the background, never in this answer.
  if (result.ok && result.autoTopUpDue) alerts.autoTopUp.nudge(result.userId, "consume_charged");
  if (!result.ok && result.autoTopUpOrg)
    alerts.autoTopUp.nudge(result.autoTopUpOrg, "consume_refused_insufficient");
  return result;
}

/** The consume answer of a charge, or the contract's error for why there was none. */
function consumeAnswer(result: ChargeOutcome) {
  if (result.ok) {
    return {
      credit_balance: fromMillicredits(result.balanceAfter),
      charged: fromMillicredits(result.amount),
      ledger_entry_id: result.spendId,
      replayed: result.repeated,
    };
  }
  switch (result.reason) {
    case "no_user":
      throw new ApiError(404, DETAIL.userNotFound);
    case "no_key":
      throw new ApiError(404, DETAIL.apiKeyNotFound);
    case "disabled":
      throw new ApiError(403, DETAIL.accountDisabled);
    case "dispute_hold":
      throw new ApiError(402, DETAIL.paymentDisputed);
    case "idempotency_mismatch":
      throw new ApiError(409, DETAIL.idempotencyKeyReused);
    case "feature_not_allowed":
      throw new ApiError(403, DETAIL.featureNotAllowed);
    case "key_limit":
      throw new ApiError(402, DETAIL.apiKeyCreditLimit);
    case "member_cap":
      throw new ApiError(402, ORG_DETAIL.memberCapReached);
    case "insufficient":
      throw new ApiError(402, billingError("insufficient_credits").message);
  }
}

/** The 200 answer of a charge (a replay says so in a header too, as Stripe's `Idempotent-Replayed`). */
function answerCharge(c: Context<AppEnv>, result: ChargeOutcome) {
  const answer = consumeAnswer(result);
  return c.json(answer, 200, answer.replayed ? { "Idempotent-Replayed": "true" } : {});
}

/** The longest a simulated charge may lie in the past: the usage history's longest range. */
const BACKDATE_LIMIT_MS = USAGE_MAX_DAYS * 86_400_000;

/**
 * Consume's `at` as the instant to record, or a 422 where it is not allowed, not a date-time, or out
 * of range. The schema already refuses text that is not an ISO 8601 date-time; an invalid date here
 * would pass both comparisons below (NaN compares false) and be recorded as the time of a charge.
 */
export function backdated(at: string, now: Date, allowed: boolean): Date {
  const refuse = (msg: string) =>
    new RequestValidationError([{ loc: ["body", "at"], msg, type: "value_error" }]);
  if (!allowed) throw refuse(DETAIL.backdatingDevelopmentOnly);
  const instant = new Date(at);
  if (Number.isNaN(instant.getTime())) throw refuse(ISO_DATE_TIME_EXPECTED);
  if (instant.getTime() > now.getTime()) throw refuse(DETAIL.backdatingFuture);
  if (now.getTime() - instant.getTime() > BACKDATE_LIMIT_MS) throw refuse(DETAIL.backdatingTooOld);
  return instant;
}

// Either form of the consume body, read before its shape decides which schema checks it. Built once:
// a zod schema made per request cost a charge 2% of its server time (decision 012).
const ANY_JSON = z.unknown();

const userOnly = async (db: Db, id: string) => {
  const user = await findUserById(db, id);
  return user ? { user } : undefined;
};

/** A feature charged by an admin's token: the reason is required, and the audit log keeps it. */
async function staffFeatureCharge(
  c: Context<AppEnv>,
  deps: ApiDeps,
  charge: FeatureCharge,
  reason: string | undefined,
): Promise<ChargeOutcome> {
  if (reason === undefined) {
    throw new RequestValidationError([
      { loc: ["body", "reason"], msg: ADMIN_TEXT.staffChargeReasonRequired, type: "missing" },
    ]);
  }
  return chargeAsStaff(deps.db, actorOf(c, deps.trustProxy), featureSpend(charge, c.var.user.id), reason, {
    form: "feature",
    feature: charge.feature,
    people: charge.people,
    quantity: charge.quantity,
    apiKeyId: charge.apiKeyId ?? null,
  });
}

export function addConsumeRoute(app: OpenAPIHono<AppEnv>, deps: ApiDeps & { billing: Billing }): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: "/credits/consume",
      operationId: "consumeCredits",
      tags: ["credits", "generation service"],
      summary:
        "Charge a user's credits once per idempotency key: by feature (metering) or a manual amount (admin)",
      description:
        "By feature: a service key with scope credits:consume, or an admin access token; priced from the credit-cost table /plans shows, within the API key's feature restriction and monthly limit. The manual form `{user_id, amount, reason, idempotency_key}` takes an admin access token; so does the feature form with a `reason`. A staff charge of either form counts against the staff member's signed-in writes and is written to the audit log (`credits.charge`, with the actor and the reason) with the charge. An admin's token counts only from a sign-in with two factors or a passkey, as on /v1/admin. An identical repeat of an idempotency key answers the first result with `replayed: true` (and the header `Idempotent-Replayed: true`, as Stripe's) and charges nothing; the same key with a different request (API key or user, feature, people, quantity; for the manual form, amount) answers 409.",
      security: [{ [SERVICE_KEY_SCHEME]: [] }, { [BEARER_SCHEME]: ["admin"] }],
      request: {
        body: {
          content: jsonContent({
            oneOf: [
              schemaRef(registry, "ConsumeFeatureRequest", consumeFeatureRequestSchema, "input"),
              schemaRef(registry, "ConsumeRequest", consumeRequestSchema, "input"),
            ],
          } as unknown as { $ref: string }),
        },
      },
      responses: {
        200: {
          description:
            "The balance after the charge (for an identical repeat: the first charge's answer, `replayed: true`)",
          content: jsonContent(schemaRef(registry, "ConsumeResponse", consumeAnswerSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid service key or access token",
          402: `Insufficient credits, the API key's monthly credit limit reached, or "${DETAIL.paymentDisputed}" (a dispute hold)`,
          403: `Not an admin, an admin's token without two factors ("${DETAIL.staffMfaRequired}"), or no scope credits:consume, a feature this API key may not be used for, or "${DETAIL.accountDisabled}"`,
          404: "Unknown user or API key",
          409: `"${DETAIL.idempotencyKeyReused}"`,
          422: `Invalid body (an unknown feature included; a staff charge without a reason: "${ADMIN_TEXT.staffChargeReasonRequired}")`,
          429: "Too many failed service authentications from this address, or too many staff writes",
        }),
      },
    },
    async (c) => {
      const token = bearerToken(c.req.header("authorization"));
      const byService = token !== undefined && claimsServiceKey(token);
      if (byService) await authenticateService(deps, c, "credits:consume");
      else {
        const { user, claims } = await authenticate(deps, c.req.header("authorization"), userOnly);
        if (user.role !== "admin") throw new ApiError(403, DETAIL.notEnoughPermissions);
        refuseStaffWithoutTwoFactors(claims);
        c.set("user", user);
        // A staff charge is a signed-in write like any console action: the same budget.
        await enforceLimits(deps.limiter, [["accountWrite", user.id]]);
      }
      const raw = await parseJsonBody(c, ANY_JSON);
      const manual = typeof raw === "object" && raw !== null && "amount" in raw;
      const now = deps.clock.now();
      if (manual) {
        if (byService) throw new ApiError(403, DETAIL.notEnoughPermissions);
        const body = parseWith(consumeRequestSchema, raw);
        const spend = {
          userId: canonicalUuid(body.user_id),
          amount: toMillicredits(body.amount),
          reason: body.reason,
          idempotencyKey: body.idempotency_key,
          requestedBy: c.var.user.id,
          now,
        };
        const result = await chargeAsStaff(deps.db, actorOf(c, deps.trustProxy), spend, body.reason, {
          form: "manual",
        });
        return answerCharge(c, afterCharge(result, deps));
      }
      const body = parseWith(consumeFeatureRequestSchema, raw);
      const charge = {
        userId: body.user_id === undefined ? undefined : canonicalUuid(body.user_id),
        apiKeyId: body.api_key_id,
        feature: body.feature,
        people: body.people,
        quantity: body.quantity,
        idempotencyKey: body.idempotency_key,
        now,
        recordedAt: body.at === undefined ? undefined : backdated(body.at, now, deps.allowBackdatedCharges),
      };
      if (!byService)
        return answerCharge(c, afterCharge(await staffFeatureCharge(c, deps, charge, body.reason), deps));
      const result = await chargeFeature(deps.db, deps.lastUsed, charge);
      const outcome = result.ok ? { ...result, amount: result.charged } : result;
      return answerCharge(c, afterCharge(outcome, deps));
    },
  );
}
