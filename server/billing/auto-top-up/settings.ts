// What a member (and staff) change about an organisation's auto top-up (AUTO-TOP-UP.md, "Settings"):
// the settings with their consent (PUT), the consent text for given values, the card-setup page,
// removing the card, and the console turning it off. Each change runs in one transaction under the
// organisation's lock, re-reads the member's role under it (decision 028), and appends its
// activity-log entry last. The state changes the system makes are the engine's (status.ts).
import { and, count, eq, gt } from "drizzle-orm";
import {
  AUTO_TOP_UP_TEXT,
  type AutoTopUpRequest,
  cardSetupConsentText,
} from "../../../contract/auto-top-up.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { can } from "../../../contract/org-roles.ts";
import { appendAudit } from "../../audit/audit-log.ts";
import type { RequestOrigin } from "../../audit/security-events.ts";
import {
  type AutoTopUpSettingsRow,
  autoTopUpSettings,
  cardSetupSessions,
  organizationMembers,
  type SavedCardRow,
  savedCards,
} from "../../db/schema/index.ts";
import type { Db, Tx } from "../../db/types.ts";
import {
  type AutoTopUpChoice,
  type AutoTopUpPack,
  type AutoTopUpSettingsInput,
  CONSENT_TEXT_VERSION,
  consentNeeded,
  type Money,
  raisesLimit,
  settingsProblems,
  type VatToday,
} from "../../domain/auto-top-up.ts";
import { topUpAllowed } from "../../domain/subscription.ts";
import type { Actor } from "../../operations/actor.ts";
import { audit } from "../../operations/actor.ts";
import { lockOrganisation } from "../../operations/org-actions.ts";
import { OperatorRefusal } from "../../operations/refusal.ts";
import { lockMembership } from "../../orgs/orgs.ts";
import { billingEmailOf } from "../billing-contacts.ts";
import type { Catalogue } from "../catalogue.ts";
import { endLeases } from "../credit-leases.ts";
import { isOnDisputeHold } from "../dispute-hold.ts";
import type { PaymentProvider } from "../ports/payment-provider.ts";
import { currentState } from "../subscription-changes.ts";
import {
  autoTopUpPacks,
  type ConsentChoice,
  consentTextFor,
  consentTextOf,
  lastConsentedLimit,
  storeConsent,
  vatOnFile,
} from "./consents.ts";
import type { AutoTopUpActor, AutoTopUpEngine } from "./engine.ts";
import { findCard, findSettings } from "./store.ts";

export interface AutoTopUpSettingsDeps {
  db: Db;
  catalogue: Pick<Catalogue, "topUpProducts" | "findTopUp">;
  provider: Pick<PaymentProvider, "createCardSetupSession" | "detachCard">;
  engine: Pick<AutoTopUpEngine, "nudge" | "turnOff" | "cancelOpenAttempt">;
  /** The business on every invoice: its country decides VAT, its name is on the card page. */
  seller: { name: string; country: string };
  portalUrl: string;
  /** After a change at the provider (the local one then delivers its events). */
  afterProviderChange: () => void;
}

/** The member who acts, and the organisation they act on (X-Organization). */
export interface MemberChange {
  orgId: string;
  personal: boolean;
  actor: { id: string; username: string; email: string };
  origin: RequestOrigin;
}

/** One refused value: where in the body, and what the member reads beside the field. */
export interface RefusedField {
  loc: (string | number)[];
  msg: string;
  type: "value_error";
}

/**
 * What auto top-up's commands throw when they refuse: the contract's status and sentence, or (422)
 * each refused field. The routes answer it (billing knows nothing of HTTP).
 */
export class AutoTopUpRefusal extends Error {
  readonly status: 403 | 404 | 409 | 422;
  readonly fields: RefusedField[];
  constructor(status: 403 | 404 | 409 | 422, detail: string, fields: RefusedField[] = []) {
    super(detail);
    this.name = "AutoTopUpRefusal";
    this.status = status;
    this.fields = fields;
  }
  static invalid(fields: RefusedField[]) {
    return new AutoTopUpRefusal(422, fields.map((f) => f.msg).join(" "), fields);
  }
}

/** Raising the limit with a sign-in older than 10 minutes: the route answers the reauth 403. */
export class RecentAuthNeeded extends Error {
  constructor() {
    super("Raising auto top-up's monthly limit needs recent authentication");
  }
}

/** What a PUT did, as its activity-log entry names it (`auto_top_up.<action>`); null: nothing changed. */
export type SettingsAction = "turned_on" | "resumed" | "changed" | "turned_off";

/** Card pages one member may have open for one organisation (each is expired when they are removed). */
export const MAX_OPEN_CARD_SETUPS_PER_MEMBER = 10;

const field = (loc: string[], msg: string): RefusedField => ({
  loc: ["body", ...loc],
  msg,
  type: "value_error",
});

/** The organisation locked, and the member's role in it read again under the lock: owner or billing. */
async function lockAsBillingMember(tx: Tx, change: Pick<MemberChange, "orgId" | "actor">): Promise<void> {
  const me = await lockMembership(tx, change.orgId, change.actor.id);
  if (!can(me.role, "billing")) throw new AutoTopUpRefusal(403, ORG_DETAIL.notAllowed);
}

/**
 * Whether the member who saved the card is still a member (ORGANISATIONS.md): a card whose saver
 * left, or whose saver is not known, is never turned on again. A personal organisation's saver is
 * its own user (its id is the organisation's).
 */
async function saverIsMember(
  tx: Tx,
  change: Pick<MemberChange, "orgId" | "personal">,
  card: Pick<SavedCardRow, "savedBy">,
): Promise<boolean> {
  if (card.savedBy === null) return false;
  if (change.personal) return card.savedBy === change.orgId;
  const [member] = await tx
    .select({ userId: organizationMembers.userId })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.orgId, change.orgId), eq(organizationMembers.userId, card.savedBy)));
  return member !== undefined;
}

const choiceOf = (row: AutoTopUpSettingsRow): AutoTopUpChoice => ({
  // Off (by the customer or the system) needs new consent to come back: it counts as not enabled.
  enabled: row.enabled && row.status !== "off",
  cardId: row.cardPaymentMethodId,
  productId: row.productId,
  threshold: row.threshold,
  monthlyLimit: { amount: row.monthlyLimit, currency: row.currency },
});

/** Whether a PUT would store anything other than what is stored. */
const sameAsStored = (row: AutoTopUpSettingsRow, next: AutoTopUpChoice, state: StoredState) =>
  row.status === state.status &&
  row.reason === state.reason &&
  row.enabled === next.enabled &&
  row.cardPaymentMethodId === next.cardId &&
  row.productId === next.productId &&
  row.threshold === next.threshold &&
  row.monthlyLimit === next.monthlyLimit.amount &&
  row.currency === next.monthlyLimit.currency;

/** The status a PUT stores: on or off, or a daily_limit pause kept (dailyPauseHeld). */
interface StoredState {
  status: "active" | "paused" | "off";
  reason: "daily_limit" | null;
  pausedUntil: Date | null;
}

/**
 * A daily_limit pause still holds until its Berlin day ends: no value a member saves lets a charge
 * through before then (at most 10 a day), so a Resume or a Save while on keeps it, and the answer
 * says when it ends instead of "active" (decision 032, addendum on the daily limit's end). A pause
 * written before it had an end is not kept (the sweep settles those).
 */
function storedState(
  previous: AutoTopUpSettingsRow | undefined,
  next: AutoTopUpChoice,
  now: Date,
): StoredState {
  const until =
    previous?.status === "paused" && previous.reason === "daily_limit" ? previous.pausedUntil : null;
  if (next.enabled && until !== null && until > now)
    return { status: "paused", reason: "daily_limit", pausedUntil: until };
  return { status: next.enabled ? "active" : "off", reason: null, pausedUntil: null };
}

function actionOf(previous: AutoTopUpSettingsRow | undefined, next: AutoTopUpChoice): SettingsAction {
  const wasOn = previous !== undefined && choiceOf(previous).enabled;
  if (next.enabled) {
    if (!wasOn) return "turned_on";
    return previous?.status === "paused" ? "resumed" : "changed";
  }
  return wasOn ? "turned_off" : "changed";
}

/** The refusals of values out of range, as the project's 422 (each field named). */
function refuseOutOfRange(input: AutoTopUpSettingsInput, packs: AutoTopUpPack[], vat: VatToday) {
  const problems = settingsProblems(input, { packs, vat });
  if (problems.length > 0)
    throw AutoTopUpRefusal.invalid(problems.map((p) => field(p.field.split("."), p.message)));
}

export function autoTopUpCommands(deps: AutoTopUpSettingsDeps) {
  const packs = autoTopUpPacks(deps.catalogue);
  /** The packs' currency: what the card page is opened in, and what charges are counted in. */
  const currency = packs[0]?.currency ?? "eur";
  const findPack = (productId: string) => packs.find((p) => p.productId === productId);

  /**
   * PUT /v1/billing/auto-top-up. Refusals in this order: no saved card, no paid plan or a dispute
   * hold when turning it on (409), values out of range (422 per field), consent missing or for another text (422 on
   * `consent`), a raised limit without recent authentication (RecentAuthNeeded). Turning it off is
   * never refused for want of a card or a plan. Answers what it did.
   */
  async function saveSettings(
    change: MemberChange,
    input: AutoTopUpRequest,
    recentAuth: boolean,
    now: Date,
  ): Promise<SettingsAction | null> {
    const { orgId } = change;
    const action = await deps.db.transaction(async (tx) => {
      // A lease was sized to keep the unreserved balance above the threshold in force when it was
      // taken (decision 051); a higher one, or auto top-up turned on, would leave it holding what
      // must stay. Any save ends the organisation's leases, first, as every change that moves what
      // a lease may hold does (a refused save rolls this back with the rest).
      await endLeases(tx, { orgId }, "organization_changed");
      await lockAsBillingMember(tx, change);
      const [previous, card] = await Promise.all([findSettings(tx, orgId), findCard(tx, orgId)]);
      if (input.enabled) {
        if (!card) throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.noCard);
        const { state } = await currentState(tx, orgId, now);
        if (!topUpAllowed(state).ok) throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.noPlan);
        // The hold turned it off (holdAfterLostDispute): turning it on or resuming it would store a
        // consent and say "on" for a feature that charges nothing until support clears the hold. A
        // change while still on (a hold placed by an older instance) is not refused in words that
        // say "stays off": the first charge turns it off.
        if (previous?.status !== "active" && (await isOnDisputeHold(tx, orgId)))
          throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.disputeHold);
        // Paused until a member saves a card (ORGANISATIONS.md): the leaver's card does not resume
        // it, nor turn it on again after a turn off (which clears the pause's reason).
        if (
          (previous?.reason === "member_left" && previous.cardPaymentMethodId === card.paymentMethodId) ||
          !(await saverIsMember(tx, change, card))
        )
          throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft);
      }
      const onFile = await vatOnFile(tx, orgId, deps.seller.country, now);
      const limit: Money = {
        amount: input.monthly_limit.amount,
        currency: input.monthly_limit.currency.toLowerCase(),
      };
      refuseOutOfRange({ ...input, monthly_limit: limit }, packs, onFile.vat);
      const pack = findPack(input.product_id) as AutoTopUpPack;
      const next: AutoTopUpChoice = {
        enabled: input.enabled,
        cardId: card?.paymentMethodId ?? null,
        productId: pack.productId,
        threshold: input.threshold,
        monthlyLimit: limit,
      };
      // The text for these values as rendered now (the card and VAT read under the lock), and the
      // one the consent in force was given for: a consent covers its text, not only the values.
      const choice: ConsentChoice | null =
        next.enabled && card ? { card, pack, threshold: next.threshold, monthlyLimit: limit } : null;
      const textNow = choice ? consentTextFor(choice, onFile).text : null;
      const consented = previous && next.enabled ? await consentTextOf(tx, previous.consentId) : null;
      const needsConsent = consentNeeded(previous ? choiceOf(previous) : null, next, {
        consented,
        now: textNow,
      });
      if (needsConsent) {
        if (!input.consent)
          throw AutoTopUpRefusal.invalid([field(["consent"], AUTO_TOP_UP_TEXT.consentRequired)]);
        if (input.consent.text_version !== CONSENT_TEXT_VERSION)
          throw AutoTopUpRefusal.invalid([field(["consent"], AUTO_TOP_UP_TEXT.consentOutdated)]);
        // Another card saved, or the VAT on file changed, since the member read the text.
        if (input.consent.text !== undefined && input.consent.text !== textNow)
          throw AutoTopUpRefusal.invalid([field(["consent"], AUTO_TOP_UP_TEXT.consentChanged)]);
      }
      // Raising is measured against what a member last consented to: values saved while off were
      // never authorised, so they cannot carry a higher limit past this check.
      if (next.enabled && !recentAuth) {
        const consented = await lastConsentedLimit(tx, orgId);
        if (raisesLimit(consented ? { ...next, monthlyLimit: consented } : null, next))
          throw new RecentAuthNeeded();
      }

      const state = storedState(previous, next, now);
      if (previous && !needsConsent && sameAsStored(previous, next, state)) return null;
      const consentId =
        needsConsent && choice
          ? await storeConsent(
              tx,
              orgId,
              choice,
              onFile,
              { userId: change.actor.id, email: change.actor.email, ...change.origin },
              now,
            )
          : (previous?.consentId ?? null);
      // A pause kept is a change of values, not a resume: nothing is nudged or cancelled.
      const action = state.status === "paused" ? "changed" : actionOf(previous, next);
      const values = {
        enabled: next.enabled,
        status: state.status,
        reason: state.reason,
        reasonDetail: null,
        declineCode: null,
        pausedUntil: state.pausedUntil,
        threshold: next.threshold,
        productId: next.productId,
        monthlyLimit: limit.amount,
        currency: limit.currency,
        cardPaymentMethodId: next.cardId,
        consentId,
        updatedBy: change.actor.id,
        updatedAt: now,
      } as const;
      await tx
        .insert(autoTopUpSettings)
        .values({ orgId, ...values })
        .onConflictDoUpdate({ target: autoTopUpSettings.orgId, set: values });
      // A payment waiting for the bank's confirmation belongs to the settings being left: turning
      // it off, or on again, cancels it (its invoice is voided, its link then says so).
      if (action === "turned_off" || action === "turned_on" || action === "resumed")
        await deps.engine.cancelOpenAttempt(
          tx,
          orgId,
          action === "turned_off"
            ? AUTO_TOP_UP_TEXT.cancelledByTurningOff
            : AUTO_TOP_UP_TEXT.cancelledByTurningOn,
          now,
        );
      await auditMember(
        tx,
        change,
        `auto_top_up.${action}`,
        {
          from: previous?.status ?? null,
          enabled: next.enabled,
          threshold: next.threshold,
          product_id: next.productId,
          monthly_limit: { amount: limit.amount, currency: limit.currency },
          card_last4: card?.last4 ?? null,
          ...(needsConsent ? { consent_id: consentId } : {}),
        },
        now,
      );
      return action;
    });
    // Outside the transaction: the trigger takes the organisation's lock itself, in the background.
    if (action === "turned_on" || action === "resumed") deps.engine.nudge(orgId, action);
    return action;
  }

  /** POST /v1/billing/auto-top-up/consent-text: the text a member accepts before turning it on. */
  async function textFor(
    orgId: string,
    values: { threshold: number; product_id: string; monthly_limit: Money },
    now: Date,
  ): Promise<{ text: string; text_version: string }> {
    const card = await findCard(deps.db, orgId);
    if (!card) throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.noCard);
    const onFile = await vatOnFile(deps.db, orgId, deps.seller.country, now);
    const limit = {
      amount: values.monthly_limit.amount,
      currency: values.monthly_limit.currency.toLowerCase(),
    };
    refuseOutOfRange({ enabled: true, ...values, monthly_limit: limit }, packs, onFile.vat);
    const pack = findPack(values.product_id) as AutoTopUpPack;
    const choice: ConsentChoice = { card, pack, threshold: values.threshold, monthlyLimit: limit };
    const { text, textVersion } = consentTextFor(choice, onFile);
    return { text, text_version: textVersion };
  }

  /** POST /v1/billing/payment-method/setup: the provider's page that saves a card for later charges. */
  async function openCardSetup(
    change: Pick<MemberChange, "orgId" | "actor">,
    now: Date,
  ): Promise<{ url: string }> {
    return deps.db.transaction(async (tx) => {
      await lockAsBillingMember(tx, change);
      // A member's removal expires each page they opened with one provider call: keep them few.
      const [open] = await tx
        .select({ n: count() })
        .from(cardSetupSessions)
        .where(
          and(
            eq(cardSetupSessions.orgId, change.orgId),
            eq(cardSetupSessions.openedBy, change.actor.id),
            eq(cardSetupSessions.status, "open"),
            gt(cardSetupSessions.expiresAt, now),
          ),
        );
      if ((open?.n ?? 0) >= MAX_OPEN_CARD_SETUPS_PER_MEMBER)
        throw new AutoTopUpRefusal(409, AUTO_TOP_UP_TEXT.tooManyCardSetups);
      const created = await deps.provider.createCardSetupSession(tx, {
        orgId: change.orgId,
        openedBy: change.actor.id,
        // The organisation's billing e-mail, never the address of the member who clicked.
        email: (await billingEmailOf(tx, change.orgId)) ?? "",
        currency,
        successUrl: `${deps.portalUrl}/profile/billing?card=saved`,
        cancelUrl: `${deps.portalUrl}/profile/billing?card=cancelled`,
        consentText: cardSetupConsentText(deps.seller.name),
      });
      return { url: created.url };
    });
  }

  /**
   * DELETE /v1/billing/payment-method: detaches the card at the provider, forgets it, and turns
   * auto top-up off (`card_removed`). 404 when no card is saved.
   */
  async function removeCard(change: MemberChange, now: Date): Promise<void> {
    await deps.db.transaction(async (tx) => {
      await lockAsBillingMember(tx, change);
      const card = await findCard(tx, change.orgId);
      if (!card) throw new AutoTopUpRefusal(404, AUTO_TOP_UP_TEXT.noSavedCard);
      // The provider first: when it refuses, nothing changed here and the member is told.
      await deps.provider.detachCard(tx, card.paymentMethodId);
      await tx.delete(savedCards).where(eq(savedCards.orgId, change.orgId));
      await deps.engine.turnOff(tx, change.orgId, "card_removed", engineActor(change), now);
      await auditMember(
        tx,
        change,
        "auto_top_up.card_removed",
        { brand: card.brand, last4: card.last4, payment_method_id: card.paymentMethodId },
        now,
      );
    });
    deps.afterProviderChange();
  }

  /**
   * The console's POST /v1/admin/orgs/{id}/auto-top-up/off: staff turn it off with a reason, kept in
   * the activity log. 409 when it is off (or was never set up); staff never act on an organisation
   * they are a member of, nor on a deleted one (lockOrganisation). Answers the audit entry's id.
   */
  async function staffTurnOff(actor: Actor, orgId: string, reason: string, now: Date): Promise<string> {
    return deps.db.transaction(async (tx) => {
      const org = await lockOrganisation(tx, actor, orgId);
      const settings = await findSettings(tx, org.id);
      if (!settings || settings.status === "off") throw new OperatorRefusal(409, AUTO_TOP_UP_TEXT.alreadyOff);
      await deps.engine.turnOff(
        tx,
        org.id,
        "staff",
        { userId: actor.id, label: actor.label, ip: actor.ip },
        now,
      );
      const row = await audit(
        tx,
        actor,
        {
          action: "auto_top_up.staff_turn_off",
          subjectUserId: org.personal ? org.id : null,
          subjectOrgId: org.id,
          reason,
          details: { from: settings.status, ...(settings.reason ? { from_reason: settings.reason } : {}) },
        },
        now,
      );
      return row.id;
    });
  }

  return { packs, currency, saveSettings, textFor, openCardSetup, removeCard, staffTurnOff };
}

export type AutoTopUpCommands = ReturnType<typeof autoTopUpCommands>;

const engineActor = (change: MemberChange): AutoTopUpActor => ({
  userId: change.actor.id,
  label: change.actor.username,
  ip: change.origin.ip,
});

/** A member's entry in the organisation's activity log (a personal one's user is its subject too). */
function auditMember(
  tx: Tx,
  change: MemberChange,
  action: string,
  details: Record<string, unknown>,
  now: Date,
) {
  return appendAudit(
    tx,
    {
      actorId: change.actor.id,
      actorLabel: change.actor.username,
      action,
      subjectUserId: change.personal ? change.orgId : null,
      subjectOrgId: change.orgId,
      reason: null,
      details: { ...details, user_agent: change.origin.userAgent },
      ip: change.origin.ip,
    },
    now,
  );
}
