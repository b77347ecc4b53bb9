// Auto top-up (AUTO-TOP-UP.md), put together: the engine the rest of the server calls
// (engine.ts). A nudge runs in the background, never inside the spend that caused it; nudges for one
// organisation that arrive while one is running are folded into one more run after it, so a burst of
// spends crossing the threshold costs two transactions, not one each (the unique index on open
// attempts is what guarantees one charge, on every instance).

import { eq } from "drizzle-orm";
import type { BackgroundTasks } from "../../background.ts";
import { type AutoTopUpSettingsRow, savedCards } from "../../db/schema/index.ts";
import type { Tx } from "../../db/types.ts";
import type { AutoTopUpPack, BalanceCause, OffReason } from "../../domain/auto-top-up.ts";
import { packGross } from "../../domain/auto-top-up.ts";
import { limitBelowPack } from "../../domain/auto-top-up-limit.ts";
import type { BillingMailSender } from "../billing-mails.ts";
import { type ChargeDeps, packOf, queueIfDue } from "./charges.ts";
import { consentStillCovers, vatOnFile } from "./consents.ts";
import type { AutoTopUpActor, AutoTopUpEngine } from "./engine.ts";
import { handleAutoTopUpEvent } from "./events.ts";
import { cancelOpenAttemptInTx, chargeAttempt, sweep, voidQuietly } from "./runner.ts";
import { changeStatus, SYSTEM_ACTOR } from "./status.ts";
import { findCard, findSettings } from "./store.ts";

export interface AutoTopUpDeps extends ChargeDeps {
  background: BackgroundTasks;
  mails: BillingMailSender;
}

/** The detail an attempt cancelled by the customer's or staff's change carries. */
export const CANCELLED_DETAIL =
  "Cancelled: auto top-up was changed or turned off before this payment was confirmed.";

/** The pauses a change of billing details makes, and its change back ends. */
const DETAILS_PAUSES: readonly string[] = ["consent_changed", "limit_below_pack"];

export function createAutoTopUp(deps: AutoTopUpDeps): AutoTopUpEngine {
  const billingUrl = `${deps.portalUrl}/profile/billing`;
  /** Organisations with a nudge running, and whether another was asked for meanwhile. */
  const running = new Map<string, { again: BalanceCause | null }>();
  /**
   * Invoices of attempts cancelled in a transaction, voided once the caller's work is done; a
   * `monthly_limit` pause that the open invoice caused, ended by the void, asks the trigger again.
   */
  const voidLater = (invoice: { invoiceId: string; attemptId: string } | null) => {
    if (invoice)
      deps.background.run("auto-top-up void", async () => {
        const { resumedFor } = await voidQuietly(deps, invoice.invoiceId, invoice.attemptId);
        if (resumedFor) engine.nudge(resumedFor, "resumed");
      });
  };

  /**
   * Why the billing details on file stop the next charge, in the trigger's order (charges.ts): one
   * pack above the limit first (the contract names it for this case), then new terms.
   */
  async function detailsPause(
    tx: Tx,
    settings: AutoTopUpSettingsRow,
    pack: AutoTopUpPack,
    now: Date,
  ): Promise<"consent_changed" | "limit_below_pack" | null> {
    const onFile = await vatOnFile(tx, settings.orgId, deps.seller.country, now);
    if (limitBelowPack(packGross(pack, onFile.vat), settings.monthlyLimit)) return "limit_below_pack";
    return (await consentStillCovers(tx, settings, pack, onFile)) ? null : "consent_changed";
  }

  async function runNudge(orgId: string, cause: BalanceCause): Promise<void> {
    let next: BalanceCause | null = cause;
    while (next !== null) {
      const attemptId = await queueIfDue(deps, orgId, next);
      next = null;
      if (attemptId) {
        const settled = await chargeAttempt(deps, attemptId);
        deps.mails.sendSoon();
        // A granted pack may still leave the balance below the threshold (a big spend): ask again.
        if (settled?.granted) next = "auto_top_up_granted";
        else if (settled?.resumed) next = "resumed";
      }
      const state = running.get(orgId);
      if (state?.again) {
        next ??= state.again;
        state.again = null;
      }
    }
  }

  const engine: AutoTopUpEngine = {
    nudge(orgId, cause) {
      const state = running.get(orgId);
      if (state) {
        state.again = cause;
        return;
      }
      running.set(orgId, { again: null });
      deps.background.run("auto top-up", () => runNudge(orgId, cause).finally(() => running.delete(orgId)));
    },

    async turnOff(tx: Tx, orgId: string, reason: OffReason, actor: AutoTopUpActor | null, now: Date) {
      const settings = await findSettings(tx, orgId);
      if (!settings || settings.status === "off") return;
      voidLater(await cancelOpenAttemptInTx(tx, deps, orgId, CANCELLED_DETAIL, now));
      await changeStatus(
        tx,
        orgId,
        { status: "off", reason },
        { actor: actor ?? SYSTEM_ACTOR, mailKey: `${orgId}:${settings.consentId}`, billingUrl },
        now,
      );
      deps.mails.sendSoon();
    },

    async memberLeft(tx, orgId, userId, now) {
      const card = await findCard(tx, orgId);
      if (card?.savedBy !== userId) return;
      // A charge to the leaver's card that has not gone out yet does not go out.
      voidLater(await cancelOpenAttemptInTx(tx, deps, orgId, CANCELLED_DETAIL, now));
      await changeStatus(
        tx,
        orgId,
        { status: "paused", reason: "member_left" },
        { actor: SYSTEM_ACTOR, mailKey: `${orgId}:${card.setupIntentId}`, billingUrl },
        now,
      );
    },

    async billingDetailsChanged(tx, orgId, now) {
      const settings = await findSettings(tx, orgId);
      const offer = settings && deps.catalogue.findTopUp(settings.productId);
      if (!settings || !offer || settings.status === "off") return;
      const pack = packOf(offer);
      const pause = await detailsPause(tx, settings, pack, now);
      const pausedByDetails = settings.reason !== null && DETAILS_PAUSES.includes(settings.reason);
      if (pause && (settings.status === "active" || (settings.status === "paused" && pausedByDetails))) {
        // Mailed once per consent and reason, however often the details go back and forth.
        const mailKey = `${orgId}:${settings.consentId}:${pause}`;
        await changeStatus(
          tx,
          orgId,
          { status: "paused", reason: pause },
          { actor: SYSTEM_ACTOR, mailKey, billingUrl },
          now,
        );
      } else if (!pause && settings.status === "paused" && pausedByDetails) {
        await changeStatus(tx, orgId, { status: "active" }, { actor: SYSTEM_ACTOR, billingUrl }, now);
      }
    },

    async forgetCard(tx, orgId) {
      const card = await findCard(tx, orgId);
      if (!card) return;
      await tx.delete(savedCards).where(eq(savedCards.orgId, orgId));
      deps.background.run("auto-top-up detach", async () => {
        try {
          await deps.provider.detachCard(deps.db, card.paymentMethodId);
        } catch (error) {
          deps.logger.warn({ err: error, orgId }, "A deleted organisation's card could not be detached");
        }
      });
    },

    async cancelOpenAttempt(tx, orgId, detail, now) {
      voidLater(await cancelOpenAttemptInTx(tx, deps, orgId, detail, now));
    },

    async handleEvent(tx, event, now) {
      const { grantedFor, resumedFor } = await handleAutoTopUpEvent(
        tx,
        {
          ...deps,
          voidLater,
          cardGone: (t, orgId, at) => engine.turnOff(t, orgId, "card_removed", null, at),
          cardReplaced: async (t, orgId, at) => {
            const settings = await findSettings(t, orgId);
            if (settings?.status === "off" || !settings) return;
            voidLater(await cancelOpenAttemptInTx(t, deps, orgId, CANCELLED_DETAIL, at));
            await changeStatus(
              t,
              orgId,
              { status: "paused", reason: "card_replaced" },
              { actor: SYSTEM_ACTOR, billingUrl },
              at,
            );
          },
        },
        event,
        now,
      );
      // After the webhook's commit (the background runs it after this answer's work).
      if (grantedFor) engine.nudge(grantedFor, "auto_top_up_granted");
      else if (resumedFor) engine.nudge(resumedFor, "resumed");
    },

    async runDue() {
      const { moved, resumed } = await sweep(deps);
      for (const orgId of resumed) engine.nudge(orgId, "resumed");
      if (moved > 0) deps.mails.sendSoon();
      return moved;
    },
  };
  return engine;
}
