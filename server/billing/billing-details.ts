// Saving an organisation's billing details (PUT /v1/billing/details): on the provider customer
// first (made now if the organisation has none), then next to its id here, with an audit entry
// `billing_details.change` in the same transaction. Invoices issued from then on carry them as the
// buyer; invoices already issued keep theirs. The VAT ID's state is the provider's answer (decision 031).
import { appendAudit } from "../audit/audit-log.ts";
import type { RequestOrigin } from "../audit/security-events.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/types.ts";
import type { AutoTopUpEngine } from "./auto-top-up/engine.ts";
import { lockUser } from "./ledger-store.ts";
import type { CustomerDetails, PaymentProvider } from "./ports/payment-provider.ts";
import { saveGivenBillingDetails } from "./subscription-store.ts";

export interface DetailsChange {
  orgId: string;
  /** Null for a personal organisation (its user is the subject too). */
  orgName: string | null;
  actor: { id: string; username: string };
  origin: RequestOrigin;
  details: CustomerDetails;
}

export function billingDetailsCommands(deps: {
  db: Db;
  clock: Clock;
  provider: PaymentProvider;
  autoTopUp: Pick<AutoTopUpEngine, "billingDetailsChanged">;
}) {
  return {
    async saveDetails(change: DetailsChange): Promise<void> {
      const { orgId, details } = change;
      await deps.db.transaction(async (tx) => {
        await lockUser(tx, orgId);
        // The provider first: when it refuses, nothing changed here and the caller is told.
        const saved = await deps.provider.saveCustomerDetails(tx, orgId, details);
        const now = deps.clock.now();
        await saveGivenBillingDetails(tx, orgId, details, saved.vatIdStatus, now);
        // The VAT, and so one pack's gross, may have changed: a limit below it pauses auto top-up.
        await deps.autoTopUp.billingDetailsChanged(tx, orgId, now);
        const personal = change.orgName === null;
        await appendAudit(
          tx,
          {
            actorId: change.actor.id,
            actorLabel: change.actor.username,
            action: "billing_details.change",
            subjectUserId: personal ? orgId : null,
            subjectOrgId: orgId,
            reason: null,
            details: {
              name: details.name,
              country: details.address.country,
              vat_id: details.vatId,
              user_agent: change.origin.userAgent,
            },
            ip: change.origin.ip,
          },
          now,
        );
      });
    },
  };
}
