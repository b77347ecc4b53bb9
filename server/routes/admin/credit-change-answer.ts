// POST /v1/admin/customers/{id}/credits and /v1/admin/orgs/{id}/credits: one handler body for both
// (a customer's credits are their personal organisation's; the subject says whose and how to lock).
import type * as z from "zod/mini";
import type { creditChangeRequestSchema } from "../../../contract/admin.ts";
import type { Actor } from "../../operations/actor.ts";
import { type CreditSubject, changeCredits } from "../../operations/credit-changes.ts";
import type { AdminDeps } from "./admin-deps.ts";

export async function answerCreditChange(
  deps: AdminDeps,
  actor: Actor,
  subject: string | CreditSubject,
  body: z.output<typeof creditChangeRequestSchema>,
  now: Date,
) {
  const result = await changeCredits(
    deps.db,
    actor,
    subject,
    {
      amount: body.amount,
      reason: body.reason,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
      idempotencyKey: body.idempotency_key,
      note: body.note || null,
    },
    now,
    deps.supportGrantLimits,
    deps.billing.announceGoodwill,
  );
  // The grant's mail was queued with it: out once the transaction has committed.
  if (!result.replayed && body.amount > 0) deps.billing.sendMailsSoon();
  return {
    ...result.entry,
    balance_after: result.balanceAfter,
    audit_id: result.auditId,
    replayed: result.replayed,
  };
}
