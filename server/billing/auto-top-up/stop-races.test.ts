// A stop that lands while an attempt is being charged (AUTO-TOP-UP.md: "turning auto top-up off …
// cancels it"; decision 032, addendum). With Stripe the invoice is three requests (create, item,
// finalise) and the payment a fourth: a member turning auto top-up off, staff disabling the
// organisation or a newer card arriving meanwhile must leave nothing charged, and turning it off
// and on again must not make room under the monthly limit for a second charge beside the first.
// The provider here is the local checkout with the stop made to happen during its call.
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  type AutoTopUpAttemptRow,
  autoTopUpAttempts,
  autoTopUpSettings,
  creditGrants,
  invoices,
  localInvoices,
  webhookDeliveries,
} from "../../db/schema/index.ts";
import { adminCall, staffMember } from "../../testing/admin.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  AUTO_TOP_UP_CARDS,
  autoTopUpEngineOf,
  chargeDepsOf,
  PACK_GROSS,
  pauseMailCount,
  putAutoTopUp,
  saveCard,
  settingsOf,
  settleAll,
  spendAsStaff,
  turnOn,
  whileVoidsFail,
} from "../../testing/auto-top-up.ts";
import { subscribe } from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, type TestApp } from "../../testing/test-app.ts";
import type { PaymentProvider } from "../ports/payment-provider.ts";
import { type ChargeDeps, chargeOf, queueIfDue } from "./charges.ts";
import { chargeAttempt, STALE_AFTER_MS, sweep } from "./runner.ts";
import { storeInvoiceToPay } from "./store.ts";

describe.each(TEST_DATABASES)("a stop while an auto top-up is charged (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /**
   * A subscriber of tier A whose balance (50 credits) is below the threshold (100), with auto
   * top-up on at a limit of one pack, a staff member, and the attempt the trigger opens.
   */
  async function belowThreshold(t: TestApp, cardNumber: string = AUTO_TOP_UP_CARDS.pays) {
    const user = await verifiedUser(t, "ann");
    await subscribe(t, user.accessToken, "A");
    const card = await saveCard(t, user.id, user.id, cardNumber);
    const admin = await staffMember(t, "boss", "admin");
    // Spent before auto top-up is on: nothing is queued by it.
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "spend-1");
    await turnOn(t, user.id, card.paymentMethodId, { limit: PACK_GROSS });
    return { user, admin };
  }

  /** The charging deps with `during` run inside the provider's `step`, after the real call. */
  function racing(
    t: TestApp,
    step: "createAutoTopUpInvoice" | "payAutoTopUpInvoice",
    during: () => Promise<void>,
  ): ChargeDeps {
    const real = t.local.provider;
    const provider: PaymentProvider = {
      ...real,
      createAutoTopUpInvoice: async (db, charge) => {
        const made = await real.createAutoTopUpInvoice(db, charge);
        if (step === "createAutoTopUpInvoice") await during();
        return made;
      },
      payAutoTopUpInvoice: async (db, charge, invoiceId) => {
        const answer = await real.payAutoTopUpInvoice(db, charge, invoiceId);
        if (step === "payAutoTopUpInvoice") await during();
        return answer;
      },
    };
    return { ...chargeDepsOf(t), provider };
  }

  const attemptsOf = (t: TestApp, orgId: string) =>
    t.deps.db.select().from(autoTopUpAttempts).where(eq(autoTopUpAttempts.orgId, orgId));
  const invoicesOf = (t: TestApp, orgId: string) =>
    t.deps.db.select().from(localInvoices).where(eq(localInvoices.orgId, orgId));
  const chargedTotal = async (t: TestApp, orgId: string) =>
    (await invoicesOf(t, orgId)).filter((i) => i.status === "paid").reduce((sum, i) => sum + i.total, 0);
  const packsGranted = async (t: TestApp, orgId: string) =>
    (await t.deps.db.select().from(creditGrants).where(eq(creditGrants.userId, orgId))).filter((g) =>
      g.fulfilmentKey?.startsWith("auto_top_up:"),
    ).length;

  /** Opens the attempt as the trigger does, and charges it with `deps`. */
  async function openAndCharge(t: TestApp, deps: ChargeDeps, orgId: string) {
    const attemptId = await queueIfDue(deps, orgId, "consume_charged");
    expect(attemptId).not.toBeNull();
    const settled = await chargeAttempt(deps, attemptId as string);
    await settleAll(t);
    return { attemptId: attemptId as string, settled };
  }

  /**
   * The member turns auto top-up off and on again (with consent) while the provider cannot be
   * reached to void the cancelled attempt's invoice.
   */
  async function offAndOnWhileVoidsFail(t: TestApp, token: string) {
    await whileVoidsFail(t, async () => {
      await putAutoTopUp(t, token, false);
      await putAutoTopUp(t, token, true);
      await settleAll(t);
    });
  }

  /**
   * belowThreshold, charged with deps whose invoice is made while the member turns auto top-up off,
   * and whose voids fail (the provider unreachable) until `voids.getThrough()`.
   */
  async function stoppedWhileVoidsFail(t: TestApp) {
    const s = await belowThreshold(t);
    const real = t.local.provider;
    let voidFails = true;
    const base = racing(t, "createAutoTopUpInvoice", () => putAutoTopUp(t, s.user.accessToken, false));
    const deps: ChargeDeps = {
      ...base,
      provider: {
        ...base.provider,
        voidAutoTopUpInvoice: async (db, invoiceId, attemptId) => {
          if (voidFails) throw new Error("provider unreachable");
          await real.voidAutoTopUpInvoice(db, invoiceId, attemptId);
        },
      },
    };
    const voids = {
      getThrough: () => {
        voidFails = false;
      },
    };
    return { s, deps, voids };
  }

  const stops = [
    [
      "the member turning auto top-up off",
      async (t: TestApp, s: { user: { id: string; accessToken: string } }) =>
        putAutoTopUp(t, s.user.accessToken, false),
      { status: "off", reason: null },
    ],
    [
      "staff disabling the organisation",
      async (t: TestApp, s: { user: { id: string }; admin: { accessToken: string } }) => {
        const res = await adminCall(t, `/v1/admin/customers/${s.user.id}/disable`, s.admin.accessToken, {
          reason: "Chargeback fraud",
        });
        expect(res.status).toBe(200);
      },
      { status: "off", reason: "organisation_disabled" },
    ],
    [
      "a newer card replacing the saved one",
      async (t: TestApp, s: { user: { id: string } }) => {
        t.clock.advance(1000);
        await saveCard(t, s.user.id, s.user.id, AUTO_TOP_UP_CARDS.authenticatesThenPays);
      },
      { status: "paused", reason: "card_replaced" },
    ],
  ] as const;

  it.each(stops)(
    "%s while the invoice is made: nothing is charged, the invoice is void",
    async (_name, stop, after) => {
      const t = ctx.t;
      const s = await belowThreshold(t);
      const deps = racing(t, "createAutoTopUpInvoice", () => stop(t, s));
      const { attemptId, settled } = await openAndCharge(t, deps, s.user.id);
      expect(settled?.granted).toBe(false);
      const [invoice] = await invoicesOf(t, s.user.id);
      expect(invoice?.status).toBe("void");
      const [attempt] = await attemptsOf(t, s.user.id);
      expect(attempt).toMatchObject({ id: attemptId, status: "cancelled", providerInvoiceId: invoice?.id });
      // Seen void: it no longer keeps its room under the limit.
      expect(attempt?.invoiceClosedAt).not.toBeNull();
      expect(await chargedTotal(t, s.user.id)).toBe(0);
      expect(await packsGranted(t, s.user.id)).toBe(0);
      expect(await settingsOf(t, s.user.id)).toMatchObject(after);
    },
  );

  it("turned off and on again while the invoice is made: one pack charged within a one-pack limit", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    const deps = racing(t, "createAutoTopUpInvoice", async () => {
      await putAutoTopUp(t, s.user.accessToken, false);
      // On again with consent: its nudge opens and charges a second attempt at once.
      await putAutoTopUp(t, s.user.accessToken, true);
      await settleAll(t);
    });
    const { attemptId } = await openAndCharge(t, deps, s.user.id);
    expect(await chargedTotal(t, s.user.id)).toBe(PACK_GROSS);
    const attempts = await attemptsOf(t, s.user.id);
    expect(attempts.find((a) => a.id === attemptId)).toMatchObject({ status: "cancelled" });
    expect(attempts.filter((a) => a.status === "paid")).toHaveLength(1);
    expect(await packsGranted(t, s.user.id)).toBe(1);
    expect((await invoicesOf(t, s.user.id)).map((i) => i.status).sort()).toEqual(["paid", "void"]);
  });

  it("turned off and on again while the payment is on its way: it keeps its room, no second charge", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    // The payment has reached the provider (money taken) when the stop and the new consent land,
    // and the stop's void of the invoice has not got through yet (the provider slow to answer it).
    const deps = racing(t, "payAutoTopUpInvoice", () => offAndOnWhileVoidsFail(t, s.user.accessToken));
    const { attemptId } = await openAndCharge(t, deps, s.user.id);
    // Paid always grants, even for an attempt cancelled meanwhile; the turn-on's nudge found the
    // month's limit taken by it instead of charging a second pack.
    expect(await chargedTotal(t, s.user.id)).toBe(PACK_GROSS);
    expect(await attemptsOf(t, s.user.id)).toEqual([
      expect.objectContaining({ id: attemptId, status: "paid" }),
    ]);
    expect(await packsGranted(t, s.user.id)).toBe(1);
    // Its invoice closed (paid) while the pause held: the limit checked again is truly reached,
    // so the pause stays until next month, also through the sweep.
    expect((await attemptsOf(t, s.user.id))[0]?.invoiceClosedAt).not.toBeNull();
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    t.clock.advance(STALE_AFTER_MS + 1000);
    expect((await sweep(deps)).resumed).toEqual([]);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
  });

  it("a cancelled attempt's invoice whose void failed keeps its room until the sweep voids it", async () => {
    const t = ctx.t;
    const { s, deps, voids } = await stoppedWhileVoidsFail(t);
    const { attemptId } = await openAndCharge(t, deps, s.user.id);
    const [invoice] = await invoicesOf(t, s.user.id);
    expect(invoice?.status).toBe("open");
    expect((await attemptsOf(t, s.user.id))[0]).toMatchObject({
      id: attemptId,
      status: "cancelled",
      providerInvoiceId: invoice?.id,
      invoiceClosedAt: null,
    });
    // Turned on again meanwhile: the unvoided invoice keeps the one-pack limit taken.
    await putAutoTopUp(t, s.user.accessToken, true);
    await settleAll(t);
    expect(await attemptsOf(t, s.user.id)).toHaveLength(1);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    // The sweep voids it again once the provider answers, and the room is free.
    voids.getThrough();
    expect((await sweep(deps)).resumed).toEqual([]);
    expect((await invoicesOf(t, s.user.id))[0]?.status).toBe("open");
    t.clock.advance(STALE_AFTER_MS + 1000);
    const { resumed } = await sweep(deps);
    const [voided] = await invoicesOf(t, s.user.id);
    expect(voided?.status).toBe("void");
    expect((await attemptsOf(t, s.user.id))[0]?.invoiceClosedAt).not.toBeNull();
    expect(await chargedTotal(t, s.user.id)).toBe(0);
    // Nothing was charged, so the month's limit was never reached: the pause ends with the void,
    // not next month, and the trigger asked again charges the pack still due.
    expect(resumed).toEqual([s.user.id]);
    expect(await settingsOf(t, s.user.id)).toMatchObject({
      status: "active",
      reason: null,
      pausedUntil: null,
    });
    autoTopUpEngineOf(t).nudge(s.user.id, "resumed");
    await settleAll(t);
    expect(await chargedTotal(t, s.user.id)).toBe(PACK_GROSS);
    expect((await attemptsOf(t, s.user.id)).map((a) => a.status).sort()).toEqual(["cancelled", "paid"]);
  });

  it("a void seen through the webhook ends the monthly_limit pause its open invoice caused", async () => {
    const t = ctx.t;
    // A payment the bank wants confirmed: Stripe sends invoice.payment_action_required for it, and
    // invoice.payment_failed beside it (with no decline code: the handler reads the invoice).
    const s = await belowThreshold(t, AUTO_TOP_UP_CARDS.alwaysAuthenticates);
    const deps = chargeDepsOf(t);
    const attemptId = (await queueIfDue(deps, s.user.id, "consume_charged")) as string;
    await chargeAttempt(deps, attemptId);
    await settleAll(t);
    const [waiting] = await attemptsOf(t, s.user.id);
    expect(waiting).toMatchObject({ id: attemptId, status: "authentication_required" });
    const invoiceId = waiting?.providerInvoiceId as string;
    // Turned off and on again while the provider cannot be reached: the cancelled attempt's
    // invoice is not voided, so it keeps the one-pack limit taken and the turn-on's charge pauses.
    await offAndOnWhileVoidsFail(t, s.user.accessToken);
    expect(await attemptsOf(t, s.user.id)).toEqual([
      expect.objectContaining({ id: attemptId, status: "cancelled", invoiceClosedAt: null }),
    ]);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    // The void got through after all, its answer lost on the way back, and the first delivery of
    // its invoice.voided failed (that event alone would end the pause: webhooks' tests).
    await t.local.provider.voidAutoTopUpInvoice(t.deps.db, invoiceId, attemptId);
    await t.deps.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(t.clock.now().getTime() + 86_400_000) })
      .where(and(eq(webhookDeliveries.type, "invoice.voided"), isNull(webhookDeliveries.deliveredAt)));
    await settleAll(t);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    // Stripe's invoice.payment_failed of that payment, delivered late: the invoice it names is read
    // void, which closes it, and the limit checked again has room for the pack.
    await t.deps.db.transaction((tx) =>
      autoTopUpEngineOf(t).handleEvent(
        tx,
        {
          eventId: "evt_failed_late",
          eventType: "invoice.payment_failed",
          created: t.clock.now(),
          livemode: false,
          kind: "auto_top_up_failed",
          attemptId,
          customerId: null,
          invoiceId,
          actionRequired: false,
          code: null,
          payUrl: null,
        },
        t.clock.now(),
      ),
    );
    expect((await attemptsOf(t, s.user.id))[0]?.invoiceClosedAt).not.toBeNull();
    expect(await settingsOf(t, s.user.id)).toMatchObject({
      status: "active",
      reason: null,
      pausedUntil: null,
    });
    // The webhook asked the trigger again: the pack still due is charged (the bank asks again).
    await settleAll(t);
    expect((await attemptsOf(t, s.user.id)).map((a) => a.status).sort()).toEqual([
      "authentication_required",
      "cancelled",
    ]);
  });

  it("each monthly_limit pause is mailed once: a real one after a false one lifted is mailed too", async () => {
    const t = ctx.t;
    const { s, deps, voids } = await stoppedWhileVoidsFail(t);
    const notCharged = async () =>
      (await t.deps.db.select().from(invoices).where(eq(invoices.userId, s.user.id))).filter(
        (i) => i.status === "not_charged",
      ).length;
    await openAndCharge(t, deps, s.user.id);
    // The false pause: a cancelled attempt's invoice, still open, keeps the limit's room.
    await putAutoTopUp(t, s.user.accessToken, true);
    await settleAll(t);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    expect(await pauseMailCount(t)).toBe(1);
    expect(await notCharged()).toBe(1);
    // Its void lands: the pause ends and the pack is charged, which now fills the limit.
    voids.getThrough();
    t.clock.advance(STALE_AFTER_MS + 1000);
    expect((await sweep(deps)).resumed).toEqual([s.user.id]);
    autoTopUpEngineOf(t).nudge(s.user.id, "resumed");
    await settleAll(t);
    expect(await chargedTotal(t, s.user.id)).toBe(PACK_GROSS);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "active" });
    // Later that month the program spends below the threshold again: the limit is truly reached.
    t.clock.advance(60_000);
    await spendAsStaff(t, s.admin.accessToken, s.user.id, 460, "spend-2");
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    expect(await pauseMailCount(t)).toBe(2);
    expect(await notCharged()).toBe(2);
    // Seen again (another spend, the sweep, a redelivered event): the same pause, no more mail.
    t.clock.advance(60_000);
    await spendAsStaff(t, s.admin.accessToken, s.user.id, 1, "spend-3");
    await autoTopUpEngineOf(t).runDue();
    await settleAll(t);
    expect(await pauseMailCount(t)).toBe(2);
    expect(await notCharged()).toBe(2);
    expect(await chargedTotal(t, s.user.id)).toBe(PACK_GROSS);
  });

  it("an invoice made before a crash, its id never stored: the sweep finds the same one and pays it once", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    const deps = chargeDepsOf(t);
    const attemptId = (await queueIfDue(deps, s.user.id, "consume_charged")) as string;
    const [attempt] = await attemptsOf(t, s.user.id);
    // The crash: the provider made the invoice (Stripe: under the attempt's idempotency keys).
    const made = await t.local.provider.createAutoTopUpInvoice(
      t.deps.db,
      await chargeOf(deps, attempt as AutoTopUpAttemptRow),
    );
    t.clock.advance(STALE_AFTER_MS + 1000);
    await autoTopUpEngineOf(t).runDue();
    await settleAll(t);
    expect(await invoicesOf(t, s.user.id)).toEqual([
      expect.objectContaining({ id: made.invoiceId, status: "paid" }),
    ]);
    expect((await attemptsOf(t, s.user.id))[0]).toMatchObject({
      id: attemptId,
      status: "paid",
      providerInvoiceId: made.invoiceId,
    });
    expect(await packsGranted(t, s.user.id)).toBe(1);
  });

  it("cancelled after a crash left its invoice made but unnamed: the sweep never pays it", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    const deps = chargeDepsOf(t);
    await queueIfDue(deps, s.user.id, "consume_charged");
    const [attempt] = await attemptsOf(t, s.user.id);
    await t.local.provider.createAutoTopUpInvoice(
      t.deps.db,
      await chargeOf(deps, attempt as AutoTopUpAttemptRow),
    );
    await putAutoTopUp(t, s.user.accessToken, false);
    t.clock.advance(STALE_AFTER_MS + 1000);
    await autoTopUpEngineOf(t).runDue();
    await settleAll(t);
    // Only a processing attempt is ever paid; the invoice nobody named stays unpaid (with Stripe an
    // open invoice that nothing collects: auto_advance is off).
    expect((await invoicesOf(t, s.user.id)).map((i) => i.status)).toEqual(["open"]);
    expect((await attemptsOf(t, s.user.id))[0]).toMatchObject({
      status: "cancelled",
      providerInvoiceId: null,
    });
    expect(await packsGranted(t, s.user.id)).toBe(0);
  });

  it("the invoice is stored for payment only while the attempt is still processing", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    const attemptId = (await queueIfDue(chargeDepsOf(t), s.user.id, "consume_charged")) as string;
    await putAutoTopUp(t, s.user.accessToken, false);
    expect(await storeInvoiceToPay(t.deps.db, attemptId, "in_late", t.clock.now())).toBe(false);
    expect((await attemptsOf(t, s.user.id))[0]).toMatchObject({ providerInvoiceId: null, sentAt: null });
  });

  it("a pause that replaced a limit pause after the sweep listed it is not ended by the clock", async () => {
    const t = ctx.t;
    const s = await belowThreshold(t);
    const attemptsBefore = (await attemptsOf(t, s.user.id)).length;
    // A daily limit pause whose Berlin day has ended, as the sweep lists it.
    const pause = { status: "paused", reason: "daily_limit" } as const;
    const settings = eq(autoTopUpSettings.orgId, s.user.id);
    await t.deps.db
      .update(autoTopUpSettings)
      .set({ ...pause, pausedUntil: new Date(t.clock.now().getTime() - 1000) })
      .where(settings);
    // The card's member leaves between the sweep's list and its lock (review 88, M1): the sweep's
    // first transaction finds the member_left pause written before it.
    const db = t.deps.db;
    let raced = false;
    const racingDb = new Proxy(db, {
      get(target, name) {
        if (name === "transaction" && !raced) {
          raced = true;
          return async (...args: Parameters<typeof db.transaction>) => {
            await db
              .update(autoTopUpSettings)
              .set({ reason: "member_left", pausedUntil: null })
              .where(settings);
            return db.transaction(...args);
          };
        }
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    expect((await sweep({ ...chargeDepsOf(t), db: racingDb })).resumed).toEqual([]);
    expect(raced).toBe(true);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "member_left" });
    await settleAll(t);
    expect(await attemptsOf(t, s.user.id)).toHaveLength(attemptsBefore);
  });
});
