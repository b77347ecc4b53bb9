// invoice.voided of an auto top-up's invoice, delivered signed to the webhook as Stripe sends it (the
// local checkout builds it on Stripe's example invoice). A void that Stripe made, or that our own
// call made while its answer was lost, closes the attempt's invoice at once: the room it kept under
// the monthly limit is free and a monthly_limit pause it caused ends, without waiting for the sweep.
// Once per invoice, in any order with the attempt's other events; other invoices are only recorded.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { VOIDED_DETAIL, VOIDED_WHILE_WAITING_DETAIL } from "../../billing/auto-top-up/settle.ts";
import { auditLog, autoTopUpAttempts, webhookEvents } from "../../db/schema/index.ts";
import { staffMember } from "../../testing/admin.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  AUTO_TOP_UP_CARDS,
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
import { sendWebhook, subscribe } from "../../testing/billing.ts";
import { type QueuedEvent, queuedEvents } from "../../testing/local-auto-top-up.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS, type TestApp } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("invoice.voided of an auto top-up (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  const attemptsOf = (t: TestApp, orgId: string) =>
    t.deps.db
      .select()
      .from(autoTopUpAttempts)
      .where(eq(autoTopUpAttempts.orgId, orgId))
      .orderBy(autoTopUpAttempts.createdAt);
  const resumedEntries = (t: TestApp, orgId: string) =>
    t.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subjectOrgId, orgId), eq(auditLog.action, "auto_top_up.resumed")));
  const recorded = (t: TestApp, eventId: string) =>
    t.deps.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, eventId));

  /**
   * A subscriber with auto top-up on at a limit of one pack and `card` saved, and the attempt a
   * spend below the threshold made (settled as that card's charge is).
   */
  async function charged(t: TestApp, card: string) {
    const user = await verifiedUser(t, "ann");
    await subscribe(t, user.accessToken, "A");
    const saved = await saveCard(t, user.id, user.id, card);
    await turnOn(t, user.id, saved.paymentMethodId, { limit: PACK_GROSS });
    const admin = await staffMember(t, "boss", "admin");
    await spendAsStaff(t, admin.accessToken, user.id, 1000, "spend-1");
    const [attempt] = await attemptsOf(t, user.id);
    return { user, attempt: attempt as NonNullable<typeof attempt> };
  }

  /** charged with a card the bank always wants confirmed: the attempt waits, its invoice open. */
  async function waitingForTheBank(t: TestApp) {
    const s = await charged(t, AUTO_TOP_UP_CARDS.alwaysAuthenticates);
    expect(s.attempt).toMatchObject({ status: "authentication_required", invoiceClosedAt: null });
    expect(await settingsOf(t, s.user.id)).toMatchObject({
      status: "paused",
      reason: "authentication_required",
    });
    return s;
  }

  /**
   * waitingForTheBank, then turned off and on again while the provider cannot be reached to void
   * the cancelled attempt's invoice: it keeps the one-pack limit taken, so the turn-on's charge
   * pauses with monthly_limit.
   */
  async function pausedByAnOpenInvoice(t: TestApp) {
    const s = await waitingForTheBank(t);
    await whileVoidsFail(t, async () => {
      await putAutoTopUp(t, s.user.accessToken, false);
      await putAutoTopUp(t, s.user.accessToken, true);
      await settleAll(t);
    });
    expect(await attemptsOf(t, s.user.id)).toEqual([
      expect.objectContaining({ id: s.attempt.id, status: "cancelled", invoiceClosedAt: null }),
    ]);
    expect(await settingsOf(t, s.user.id)).toMatchObject({ status: "paused", reason: "monthly_limit" });
    return s;
  }

  /** Voids the attempt's invoice at the provider; answers its invoice.voided, not yet delivered. */
  async function voidAtProvider(t: TestApp, attempt: { id: string; providerInvoiceId: string | null }) {
    const invoiceId = attempt.providerInvoiceId as string;
    await t.local.provider.voidAutoTopUpInvoice(t.deps.db, invoiceId, attempt.id);
    const [voided] = await queuedEvents(t.deps.db, "invoice.voided");
    expect(voided?.data.object).toMatchObject({ id: invoiceId, status: "void" });
    return voided as QueuedEvent;
  }

  /** What the events could have changed: attempts, status, resumptions, mails. */
  async function stateOf(t: TestApp, orgId: string) {
    return {
      attempts: await attemptsOf(t, orgId),
      settings: await settingsOf(t, orgId),
      resumed: (await resumedEntries(t, orgId)).length,
      pauseMails: await pauseMailCount(t),
    };
  }

  it("frees the cancelled attempt's room and ends the monthly_limit pause; a redelivery does nothing more", async () => {
    const t = ctx.t;
    const { user, attempt } = await pausedByAnOpenInvoice(t);
    expect(await resumedEntries(t, user.id)).toEqual([]);
    const event = await voidAtProvider(t, attempt);

    const res = await sendWebhook(t, event);
    expect(res.status).toBe(200);
    const [closed] = await attemptsOf(t, user.id);
    expect(closed).toMatchObject({ id: attempt.id, status: "cancelled" });
    expect(closed?.invoiceClosedAt).not.toBeNull();
    expect(await resumedEntries(t, user.id)).toEqual([
      expect.objectContaining({ actorLabel: "system", details: { from: "paused" } }),
    ]);
    // The trigger, asked again, charges the pack still due: it fits the one-pack limit now (the
    // bank asks to confirm it, as every charge of this card).
    await settleAll(t);
    expect((await attemptsOf(t, user.id)).map((a) => a.status)).toEqual([
      "cancelled",
      "authentication_required",
    ]);
    expect(await settingsOf(t, user.id)).toMatchObject({
      status: "paused",
      reason: "authentication_required",
    });

    // Delivered again (by hand, and the local checkout's own delivery of it): recorded once.
    const before = await stateOf(t, user.id);
    expect((await sendWebhook(t, event)).status).toBe(200);
    await settleAll(t);
    expect(await recorded(t, event.id)).toHaveLength(1);
    // The invoice's invoice.payment_failed arriving after its void: the invoice reads void, the
    // attempt is settled already, nothing changes.
    const late = {
      ...event,
      id: "evt_failed_after_void",
      type: "invoice.payment_failed",
      data: { object: { ...event.data.object, status: "open" } },
    };
    expect((await sendWebhook(t, late)).status).toBe(200);
    await settleAll(t);
    expect(await recorded(t, late.id)).toHaveLength(1);
    expect(await stateOf(t, user.id)).toEqual(before);
  });

  it("after the attempt's invoice.payment_failed, its invoice.voided closes the invoice, nothing more", async () => {
    const t = ctx.t;
    // Declined, and the void that follows the decline not through (the provider unreachable): the
    // decline's own event was handled, the invoice stays open.
    let s: Awaited<ReturnType<typeof charged>> | undefined;
    await whileVoidsFail(t, async () => {
      s = await charged(t, AUTO_TOP_UP_CARDS.insufficientFunds);
    });
    const { user, attempt } = s as NonNullable<typeof s>;
    expect(attempt).toMatchObject({ status: "failed", invoiceClosedAt: null });
    expect(
      await recorded(t, (await queuedEvents(t.deps.db, "invoice.payment_failed"))[0]?.id ?? ""),
    ).toHaveLength(1);
    const before = await stateOf(t, user.id);
    expect(before.settings).toMatchObject({ status: "paused", reason: "declined" });
    const event = await voidAtProvider(t, attempt);
    expect((await sendWebhook(t, event)).status).toBe(200);
    await settleAll(t);
    const after = await stateOf(t, user.id);
    expect(after.attempts).toEqual([expect.objectContaining({ id: attempt.id, status: "failed" })]);
    expect(after.attempts[0]?.invoiceClosedAt).not.toBeNull();
    expect({ ...after, attempts: [] }).toEqual({ ...before, attempts: [] });
  });

  it("an invoice that is not an auto top-up's, or not the attempt's, is recorded and ignored", async () => {
    const t = ctx.t;
    const { user, attempt } = await pausedByAnOpenInvoice(t);
    const event = await voidAtProvider(t, attempt);
    // Not delivered yet: the pause stands until it is.
    const before = await stateOf(t, user.id);
    const object = event.data.object;
    const others = [
      // A renewal's or a one-time payment's invoice: no attempt in its metadata.
      { id: "evt_other_invoice", object: { ...object, id: "in_other", metadata: {} } },
      // Naming the attempt, but not the invoice it names (one made again after a crash, say).
      { id: "evt_not_its_invoice", object: { ...object, id: "in_not_its" } },
      // Naming an attempt we never made (another environment on the same Stripe account).
      {
        id: "evt_unknown_attempt",
        object: { ...object, metadata: { auto_top_up_attempt_id: crypto.randomUUID() } },
      },
    ];
    for (const other of others) {
      const res = await sendWebhook(t, { ...event, id: other.id, data: { object: other.object } });
      expect(res.status).toBe(200);
      expect(await recorded(t, other.id)).toHaveLength(1);
    }
    await t.tasks.idle();
    expect(await stateOf(t, user.id)).toEqual(before);
    expect(t.logs.some((l) => l.includes("invoice not of an auto top-up"))).toBe(true);
    expect(t.logs.some((l) => l.includes("other than its attempt's was voided"))).toBe(true);
    expect(t.logs.some((l) => l.includes("voided for an unknown attempt"))).toBe(true);
  });

  it("a payment voided at the provider while the bank waited: the pause says so, mailed once", async () => {
    const t = ctx.t;
    const { user, attempt } = await waitingForTheBank(t);
    const mailsBefore = await pauseMailCount(t);
    const event = await voidAtProvider(t, attempt);
    expect((await sendWebhook(t, event)).status).toBe(200);
    await settleAll(t);
    const [voided] = await attemptsOf(t, user.id);
    expect(voided).toMatchObject({ id: attempt.id, status: "cancelled", detail: VOIDED_DETAIL });
    expect(voided?.invoiceClosedAt).not.toBeNull();
    // The payment link it was paused for will never be paid: a pause the member can resume.
    expect(await settingsOf(t, user.id)).toMatchObject({
      status: "paused",
      reason: "declined",
      reasonDetail: VOIDED_WHILE_WAITING_DETAIL,
    });
    expect(await pauseMailCount(t)).toBe(mailsBefore + 1);
    expect((await sendWebhook(t, event)).status).toBe(200);
    await settleAll(t);
    expect(await pauseMailCount(t)).toBe(mailsBefore + 1);
  });
});
