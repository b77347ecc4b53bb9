// The account's own data (ACCOUNT-SECURITY.md, GDPR): GET /v1/users/me/export streams it as one
// JSON document; DELETE /v1/users/me deletes the account: the subscription ends now without
// renewal, then everything personal is erased or pseudonymised in the same transaction
// (accounts/account-deletion.ts); invoices and payments stay as issued. Both need a password
// entered within 10 minutes.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { DETAIL } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { transferFirstSchema } from "../../../contract/orgs.ts";
import { deleteAccountSchema } from "../../../contract/security-events.ts";
import { eraseAccount } from "../../accounts/account-deletion.ts";
import { accountExportStream } from "../../accounts/account-export.ts";
import { lowBalanceThreshold } from "../../alerts/low-balance.ts";
import { listApiKeys } from "../../api-access/api-keys.ts";
import { securityEventsOf } from "../../audit/security-event-list.ts";
import { recordSecurityEvent } from "../../audit/security-events.ts";
import { teamName } from "../../billing/billing-contacts.ts";
import { disputeHoldSince } from "../../billing/dispute-hold.ts";
import { BillingRefusal } from "../../billing/refusal.ts";
import type { Billing } from "../../billing/service.ts";
import { takenBackOfLostDisputes } from "../../billing/taken-back.ts";
import type { Tx } from "../../db/types.ts";
import { fromMillicredits } from "../../domain/ledger.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { limitWrites, reauthRefusal, requireRecentAuth, requireUser } from "../../http/auth-guard.ts";
import { clientIp } from "../../http/client-ip.ts";
import { ApiError } from "../../http/errors.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  SIGNED_IN,
  schemaRef,
  withFields,
} from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { AccountDeletionLoss } from "../../mail/security-templates.ts";
import { paymentDisputes, wholeLedger } from "../../operations/customer-views.ts";
import {
  deleteOrganisation,
  leaveEveryTeam,
  lockTeamsToLeave,
  mailOwnersOfLeftTeams,
  whatDeletionEnds,
} from "../../orgs/org-deletion.ts";
import { lastOwnerOfTeams, type Removal, soleMemberTeams } from "../../orgs/orgs.ts";
import { type ChargeCursor, usageCharges } from "../../usage/usage-store.ts";
import type { ApiDeps } from "../api-deps.ts";
import { presentUser } from "./present-user.ts";

/** Every security event the log still holds for the account goes into the export. */
const EXPORTED_EVENTS = 10_000;

export function accountDataRoutes(deps: ApiDeps & { billing: Billing }): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const security = SIGNED_IN;
  const sensitive = [requireUser(deps), requireRecentAuth(deps)] as const;

  addRoute(
    app,
    {
      method: "get",
      path: "/users/me/export",
      operationId: "exportAccount",
      tags: ["account"],
      summary: "Download the account's data as JSON (GDPR art. 15 and 20)",
      description:
        "The account (with its dispute hold), billing details, subscription, credits (`credit_ledger`: each grant with what is left of it), the ledger (`ledger`: every entry as the operator console lists it, newest first), invoices and credit notes (each invoice with its `dispute`; a lost dispute's with what the bank took back, `taken_back`, as the invoice gives it), API key and passkey metadata (never a key), security events and every charge, streamed.",
      security,
      responses: {
        200: {
          description: "A JSON document, as a download",
          content: { "application/json": { schema: z.object({}).passthrough() } },
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          403: reauthRefusal(registry),
          429: "Too many signed-in writes (each export is a security event the audit log keeps)",
        }),
      },
    },
    ...sensitive,
    // Each export appends to the audit log: counted like a signed-in write, so a loop cannot fill it.
    limitWrites(deps.limiter),
    async (c) => {
      const user = c.var.user;
      const now = deps.clock.now();
      // A security event before anything is read: the owner sees on /profile/security that their
      // data was downloaded, and when and from where (the export holds it too).
      await recordSecurityEvent(
        deps.db,
        {
          action: "account.export",
          userId: user.id,
          actorLabel: user.username,
          origin: originOf(c, deps.trustProxy),
        },
        now,
      );
      // The personal organisation's money: its id is the user's.
      const [account, details, grants, ledger, invoices, disputes, holdSince, keys, events, threshold] =
        await Promise.all([
          presentUser(deps.db, user, now, deps.tiers),
          deps.billing.details(user.id),
          deps.billing.ledger(user.id),
          wholeLedger(deps.db, user.id),
          // Every invoice: the billing history's page shows the latest 200.
          deps.billing.invoices(user.id, true),
          paymentDisputes(deps.db, user.id),
          disputeHoldSince(deps.db, user.id),
          listApiKeys(deps.db, user.id, now, { includeRevoked: true }),
          securityEventsOf(deps.db, user.id, EXPORTED_EVENTS),
          lowBalanceThreshold(deps.db, user.id),
        ]);
      const [twoFactor, passkeys, takenBack] = await Promise.all([
        deps.twoFactor.status(user.id),
        deps.passkeys.list(user.id),
        takenBackOfLostDisputes(deps.db, invoices),
      ]);
      const head = {
        exported_at: now.toISOString(),
        account: {
          ...account,
          created_at: user.createdAt.toISOString(),
          email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
          last_login_at: user.lastLoginAt?.toISOString() ?? null,
          // The personal organisation's alert (its id is the user's).
          low_balance_threshold: threshold === null ? null : fromMillicredits(threshold),
          two_factor: twoFactor.totp,
          // A dispute lost after its credits were spent: nothing is charged until support clears it.
          dispute_hold_at: holdSince?.toISOString() ?? null,
        },
        billing_details: details,
        // Each grant with what is left of it and its expiry (as /profile lists the credits).
        credit_ledger: grants,
        // Every entry, newest first, as the operator console's ledger lists it: grants, spends per
        // Berlin day and feature, refunds, disputes, staff's changes and write-offs.
        ledger,
        // As the billing history lists them, each invoice with its dispute ("open", "won", "lost" or
        // null): a lost dispute's invoice reads "dispute_lost" there, the bank having taken it back,
        // and gives what the bank took (`taken_back`) beside what we refunded, as the invoice does.
        invoices: invoices.map((invoice) => {
          if (invoice.document === "credit_note") return invoice;
          const bank = takenBack.get(invoice.id);
          return {
            ...invoice,
            ...(bank === undefined ? {} : { taken_back: bank }),
            dispute: disputes.get(invoice.id) ?? null,
          };
        }),
        api_keys: keys.map(({ row }) => ({
          name: row.name,
          prefix: row.prefix,
          created_at: row.createdAt.toISOString(),
          expires_at: row.expiresAt?.toISOString() ?? null,
          revoked_at: row.revokedAt?.toISOString() ?? null,
          last_used_at: row.lastUsedAt?.toISOString() ?? null,
          monthly_credit_limit:
            row.monthlyCreditLimit === null ? null : fromMillicredits(row.monthlyCreditLimit),
          features: row.features,
        })),
        passkeys: passkeys.map((p) => ({
          name: p.name,
          created_at: p.createdAt.toISOString(),
          last_used_at: p.lastUsedAt?.toISOString() ?? null,
        })),
        security_events: events,
      };
      const everything = { start: new Date(0), end: new Date(now.getTime() + 1), from: "", to: "" };
      const body = accountExportStream({
        head,
        readPage: (after: ChargeCursor | undefined, limit: number) =>
          usageCharges(deps.db, user.id, everything, after, limit),
        cursorOf: (last) => ({ createdAt: last.createdAt, id: last.id }),
        item: (charge) => ({
          at: charge.createdAt.toISOString(),
          feature: charge.feature,
          people: charge.people,
          quantity: charge.quantity,
          credits: fromMillicredits(charge.amount),
          api_key: charge.keyPrefix,
          idempotency_key: charge.idempotencyKey,
        }),
      });
      return c.body(body, 200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="account-${now.toISOString().slice(0, 10)}.json"`,
        "Cache-Control": "no-store",
      });
    },
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/users/me",
      operationId: "deleteAccount",
      tags: ["account"],
      summary: "Delete the account (GDPR art. 17), with its username typed to confirm",
      description:
        "The subscription ends now, without renewal or refund, and checkouts still open are closed; API keys are revoked and every token ends; two-factor settings, mailed links and billing details are erased; the account is pseudonymised, so its username and e-mail can register again. Invoices and payments stay as issued for their retention period (10 years). Remaining credits are lost. Team organisations whose only member is the account are deleted with it (as DELETE /v1/orgs/{id} does); from the others it leaves, its keys there revoked. While it is the last owner of a team organisation with other members, the deletion is refused.",
      security,
      request: {
        body: {
          content: jsonContent(schemaRef(registry, "DeleteAccountRequest", deleteAccountSchema, "input")),
        },
      },
      responses: {
        200: detailAnswer(registry, `"${DETAIL.accountDeleted}"`),
        ...errorResponses(registry, {
          400: `"${DETAIL.deleteConfirmMismatch}"`,
          401: "No valid access token",
          403: reauthRefusal(registry),
          409: withFields(
            `"${ORG_DETAIL.transferFirst}": the account is the last owner of the organisations named, which have other members`,
            schemaRef(registry, "TransferFirst", transferFirstSchema),
          ),
          422: "No `confirm`",
          500: "The payment provider could not end the subscription or close an open checkout (or another failure): the erasure is one transaction, so nothing was deleted; try again",
        }),
      },
    },
    ...sensitive,
    async (c) => {
      const user = c.var.user;
      const body = await parseJsonBody(c, deleteAccountSchema);
      if (body.confirm !== user.username) throw new ApiError(400, DETAIL.deleteConfirmMismatch);
      // ORGANISATIONS.md: a team with other members needs another owner first.
      const blocking = await lastOwnerOfTeams(deps.db, user.id);
      if (blocking.length > 0) {
        throw new ApiError(409, ORG_DETAIL.transferFirst, {}, { organizations: blocking });
      }
      const origin = originOf(c, deps.trustProxy);
      const unusablePasswordHash = await deps.accounts.unusablePasswordHash();
      const now = deps.clock.now();
      const actor = { id: user.id, username: user.username, ip: clientIp(c, deps.trustProxy) };
      // The teams the account is alone in go first, each as DELETE /v1/orgs/{id} deletes one (with
      // its subscription at the provider, in a transaction of its own).
      // Their own deletion mail to this account's address goes with the erasure: its mail names them.
      const teams: string[] = [];
      for (const orgId of await soleMemberTeams(deps.db, user.id)) {
        const name = await teamName(deps.db, orgId);
        await deleteOrganisation(deps, orgId, actor, now);
        if (name !== null) teams.push(name);
      }
      let left: ReadonlyMap<string, Removal> = new Map();
      // What the deletion ends for good, read in its transaction before the plan ends (with the
      // provider's call, or not at all without a paid plan): its one mail says it.
      let lost: AccountDeletionLoss | undefined;
      const readLoss = async (tx: Tx) => {
        lost = await whatDeletionEnds(tx, user.id, now, deps.tiers);
      };
      const erase = async (tx: Tx) => {
        if (!lost) await readLoss(tx);
        // No checkout left open for the deleted account to be charged through.
        await deps.billing.closeOpenCheckouts(tx, user.id);
        left = await leaveEveryTeam(tx, actor, now);
        // Nor one the account opened for a team it leaves.
        for (const orgId of left.keys()) await deps.billing.closeOpenCheckouts(tx, orgId, user.id);
        await eraseAccount(tx, { userId: user.id, unusablePasswordHash, now, origin, logger: deps.logger });
      };
      try {
        // The provider first, in the same transaction as the erasure: both happen, or neither. What
        // may still refuse is checked before the provider's call, which no rollback undoes: the
        // teams to leave, locked until the commit. After it, nothing refuses: the erasure's writes
        // take no value another row can hold (its address is one no account can have).
        await deps.billing.endSubscriptionNow(user.id, erase, async (tx) => {
          await lockTeamsToLeave(tx, user.id);
          await readLoss(tx);
        });
      } catch (error) {
        if (!(error instanceof BillingRefusal && error.code === "no_paid_plan")) throw error;
        // Read again in the transaction that erases: the refused one rolled back.
        lost = undefined;
        await deps.db.transaction(erase);
      }
      deps.securityMails.accountDeleted(
        user,
        { ...(lost ?? { plan: null, credits: 0 }), teams },
        now,
        origin.ip,
      );
      await mailOwnersOfLeftTeams(deps.db, deps.orgMails, user.username, left);
      deps.logger.info({ userId: user.id }, "Account deleted by its owner");
      return c.json({ detail: DETAIL.accountDeleted }, 200);
    },
  );
  return app;
}
