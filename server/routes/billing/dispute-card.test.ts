// Stripe's dispute test card at the local checkout, through the API: 4000 0000 0000 0259 pays a
// credit pack, then the stand-in sends charge.dispute.created (signed, to the webhook, as Stripe
// would), which freezes the pack's credits and marks the payment disputed; the development route
// closes the dispute, and charge.dispute.closed gives the credits back (won) or takes them (lost).
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { InvoiceSummary } from "../../../contract/invoices.ts";
import { pdfText } from "../../../tests/fixtures/pdf-text.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { CARD_DISPUTE_ONE_OFF_MESSAGE } from "../../payments/local/cards.ts";
import { adminCall, customerPayments, staffMember } from "../../testing/admin.ts";
import { consumeRequest, createKey, serviceKey } from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import {
  ledger,
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  payAt,
  sendWebhook,
  subscribe,
} from "../../testing/billing.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";

const DISPUTE_CARD = "4000 0000 0000 0259";
/** What a request from this machine carries (the development routes answer only those). */
const LOOPBACK = {
  incoming: { socket: { remoteAddress: "127.0.0.1", remotePort: 50000, remoteFamily: "IPv4" } },
};

describe.each(TEST_DATABASES)("the dispute test card at the local checkout (%s)", (kind) => {
  const ctx = useTestApp(kind);

  const history = async (token: string) => {
    const res = await getJson(ctx.t.app, "/v1/billing/invoices", token);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: InvoiceSummary[] }).data;
  };
  const disputeEvents = async (type: string) =>
    (await ctx.t.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.type, type))).map(
      (r) => ({
        status: r.lastStatus,
        dispute: (JSON.parse(r.payload) as { data: { object: { id: string; status: string } } }).data.object,
      }),
    );
  const close = (id: string, body: unknown, env: unknown = LOOPBACK) =>
    ctx.t.app.request(
      `/_dev/billing/disputes/${id}/close`,
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
      env as Record<string, unknown>,
    );
  /** POST /_dev/billing/disputes: disputes an earlier payment. */
  const open = (body: unknown, env: unknown = LOOPBACK) =>
    ctx.t.app.request(
      "/_dev/billing/disputes",
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
      env as Record<string, unknown>,
    );
  /** A paying customer who bought the 500 pack with the dispute card: their token and the dispute. */
  const buyDisputedPack = async (name: string) => {
    const user = await verifiedUser(ctx.t, name);
    await subscribe(ctx.t, user.accessToken, "A");
    const before = (await me(ctx.t, user.accessToken)).credit_balance;
    const res = await payAndSettle(
      ctx.t,
      await openTopUpCheckout(ctx.t, user.accessToken, "500"),
      DISPUTE_CARD,
    );
    expect(res.headers.get("location")).toMatch(/\/payment\/success/);
    const [opened] = await disputeEvents("charge.dispute.created");
    return { token: user.accessToken, before, disputeId: opened?.dispute.id ?? "", opened };
  };

  // The file's first payment loads the receipt's and the invoice's modules: 15 to 30 s on a loaded machine.
  it("pays the pack, then the dispute reaches the webhook: the payment is disputed, its credits wait", {
    timeout: 60_000,
  }, async () => {
    const { token, before, opened } = await buyDisputedPack("dispcard");
    // Delivered and accepted like any event of Stripe's.
    expect(opened).toMatchObject({ status: 200, dispute: { status: "needs_response" } });
    const [pack] = await history(token);
    expect(pack?.description).toMatch(/500 credit/);
    expect(pack?.status).toBe("disputed");
    // The pack was granted, then frozen whole: the balance is what it was before.
    expect((await me(ctx.t, token)).credit_balance).toBe(before);
  });

  it("a dispute closed as won gives the credits back, once", async () => {
    const won = await buyDisputedPack("dispwon");
    const res = await close(won.disputeId, { status: "won" });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ dispute_id: won.disputeId, status: "won" });
    await ctx.t.tasks.idle();
    expect((await history(won.token))[0]?.status).toBe("paid");
    expect((await me(ctx.t, won.token)).credit_balance).toBe(won.before + 500);
    expect((await close(won.disputeId, { status: "lost" })).status).toBe(409);
    const sent = await disputeEvents("charge.dispute.closed");
    expect(sent.map((c) => [c.status, c.dispute.status])).toEqual([[200, "won"]]);
  });

  it("a dispute closed as lost takes the credits, with no hold (none were spent)", async () => {
    // Named by the invoice number /profile/billing shows, as a developer sees it.
    const lost = await buyDisputedPack("displost");
    const [opened] = await disputeEvents("charge.dispute.created");
    const [pack] = await history(lost.token);
    const closed = await close(pack?.number ?? "", { status: "lost" });
    expect(await closed.json()).toEqual({ dispute_id: opened?.dispute.id, status: "lost" });
    await ctx.t.tasks.idle();
    // Not "refunded": the bank took the money back; nobody refunded it.
    expect((await history(lost.token))[0]?.status).toBe("dispute_lost");
    const after = await me(ctx.t, lost.token);
    expect(after.credit_balance).toBe(lost.before);
    // ACCOUNT-SECURITY.md: a hold follows a lost dispute only when the payment's credits were spent.
    expect((after as { dispute_hold?: boolean }).dispute_hold ?? false).toBe(false);
    const sent = await disputeEvents("charge.dispute.closed");
    expect(sent.map((c) => [c.status, c.dispute.status])).toEqual([[200, "lost"]]);
  });

  it("a payment disputed before, open or won, is not disputed again: 409 naming its dispute", async () => {
    const { token, before, disputeId } = await buyDisputedPack("dispagain");
    const [pack] = await history(token);
    const refusal = { detail: expect.stringContaining(disputeId), dispute_id: disputeId };
    const whileOpen = await open({ invoice_number: pack?.number });
    expect(whileOpen.status).toBe(409);
    expect(await whileOpen.json()).toEqual(refusal);
    expect((await close(disputeId, { status: "won" })).status).toBe(200);
    await ctx.t.tasks.idle();
    expect((await history(token))[0]?.status).toBe("paid");
    // Paid again after the won dispute, yet Stripe never disputes the same charge a second time.
    const again = await open({ invoice_number: pack?.number });
    expect(again.status).toBe(409);
    const body = (await again.json()) as { detail: string };
    expect(body).toEqual(refusal);
    expect(body.detail).toBe(
      `That payment was disputed already (${disputeId}): a payment is disputed only once`,
    );
    expect(await disputeEvents("charge.dispute.created")).toHaveLength(1);
    await ctx.t.tasks.idle();
    expect((await history(token))[0]?.status).toBe("paid");
    expect((await me(ctx.t, token)).credit_balance).toBe(before + 500);
  });

  it("the close route: only from this machine, a known dispute, won or lost", async () => {
    const { disputeId } = await buyDisputedPack("dispguard");
    expect((await close(disputeId, { status: "won" }, {})).status).toBe(403);
    expect(
      (
        await close(
          disputeId,
          { status: "lost" },
          { ...LOOPBACK, incoming: { socket: { remoteAddress: "10.0.0.2" } } },
        )
      ).status,
    ).toBe(403);
    // A web page elsewhere that the developer has open: a form-like body needs no CORS preflight
    // (review 88, L3), and the browser marks its requests as another site's.
    const fromPage = (headers: Record<string, string>) =>
      ctx.t.app.request(
        `/_dev/billing/disputes/${disputeId}/close`,
        { method: "POST", headers, body: JSON.stringify({ status: "lost" }) },
        LOOPBACK,
      );
    expect((await fromPage({ "Content-Type": "text/plain" })).status).toBe(415);
    expect((await fromPage({})).status).toBe(415);
    expect(
      (await fromPage({ "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site" })).status,
    ).toBe(403);
    expect((await close(disputeId, { status: "withdrawn" })).status).toBe(422);
    expect((await close("du_nothing", { status: "won" })).status).toBe(404);
    expect(await disputeEvents("charge.dispute.closed")).toEqual([]);
  });

  it("an earlier pack disputed after some of its credits were spent, and lost, puts the organisation on hold, mailed once", async () => {
    const user = await verifiedUser(ctx.t, "disphold");
    await subscribe(ctx.t, user.accessToken, "A");
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
    const [pack, plan] = await history(user.accessToken);
    expect(pack?.status).toBe("paid");
    // A spend takes the plan's 1,000 credits first, then the pack's: 201 comics of 5 leave it 495.
    const key = await createKey(ctx.t, user.accessToken);
    const spend = { api_key_id: key.id, feature: "comic", people: "one" };
    const service = await serviceKey(ctx.t);
    const spent = await consumeRequest(ctx.t, service, { ...spend, quantity: 201, idempotency_key: "job-1" });
    expect(spent.status, await spent.clone().text()).toBe(200);
    expect((await ledger(ctx.t, user.accessToken)).find((g) => g.kind === "topup")?.remaining).toBe(495);

    expect((await open({ invoice_number: pack?.number }, {})).status).toBe(403);
    expect((await open({})).status).toBe(422);
    expect((await open({ invoice_number: "INV-1999-000001" })).status).toBe(404);
    // A subscription's invoice names no payment intent at this checkout.
    expect((await open({ invoice_number: plan?.number })).status).toBe(409);
    const opened = await open({ invoice_number: pack?.number });
    expect(opened.status, await opened.clone().text()).toBe(201);
    const { dispute_id } = (await opened.json()) as { dispute_id: string };
    expect((await history(user.accessToken))[0]?.status).toBe("disputed");
    expect((await open({ invoice_number: pack?.number })).status).toBe(409);

    expect((await close(dispute_id, { status: "lost" })).status).toBe(200);
    await ctx.t.tasks.idle();
    const held = (await me(ctx.t, user.accessToken)) as Awaited<ReturnType<typeof me>> & {
      dispute_hold?: boolean;
      dispute_hold_invoice?: unknown;
    };
    expect(held.dispute_hold).toBe(true);
    // The portal's alert names the disputed payment's invoice and links the portal's page of it.
    expect(held.dispute_hold_invoice).toEqual({ id: pack?.id, number: pack?.number, invoice_url: null });
    const refused = await consumeRequest(ctx.t, service, { ...spend, quantity: 1, idempotency_key: "job-2" });
    expect(refused.status).toBe(402);
    // The 402's words stay the contract's: the invoice is for the portal, not for every refusal.
    expect(await refused.json()).toEqual({ detail: "Payment disputed. Contact support." });

    // One mail to the billing contacts: what happened, what it stops, what to do.
    const holdMails = async () => (await ctx.t.mails()).filter((m) => m.subject.includes("on hold"));
    const [mail, ...more] = await holdMails();
    expect(more).toEqual([]);
    expect(mail?.to).toContain(user.email);
    expect(mail?.subject).toBe("Your GenAI Studio account is on hold: a payment was disputed");
    const text = mail?.text.replace(/\s+/g, " ") ?? "";
    expect(text).toContain(
      `The bank took back the payment of €59.50 for invoice ${pack?.number} after a dispute. Credits it bought had already been used; the rest of them were removed from the balance.`,
    );
    expect(text).toContain(
      "Your account is on hold until our support team clears it: API calls with your keys are refused, and auto top-up is off and charges nothing.",
    );
    expect(text).toContain(
      "To settle the payment and clear the hold, contact support: reply to this e-mail.",
    );
    expect(mail?.links).toContain(`${TEST_PORTAL_URL}/profile/billing/invoice?id=${pack?.id}`);

    // The same close again, redelivered and as a second event of the same fact: no second mail.
    const [closedEvent] = await ctx.t.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.type, "charge.dispute.closed"));
    const payload = closedEvent?.payload ?? "";
    expect((await sendWebhook(ctx.t, payload)).status).toBe(200);
    const copy = { ...(JSON.parse(payload) as Record<string, unknown>), id: "evt_same_close_again" };
    expect((await sendWebhook(ctx.t, copy)).status).toBe(200);
    expect(await holdMails()).toHaveLength(1);
  });

  it("a dispute lost after a partial refund: the invoice and the hold mail count the refund once", async () => {
    const user = await verifiedUser(ctx.t, "disppart");
    const ada = await staffMember(ctx.t, "adapart", "admin");
    await subscribe(ctx.t, user.accessToken, "A");
    await payAndSettle(ctx.t, await openTopUpCheckout(ctx.t, user.accessToken, "500"));
    const [pack] = await history(user.accessToken);
    // Some of the pack's credits spent (past the plan's 1,000), then €10 of it refunded by support.
    const key = await createKey(ctx.t, user.accessToken);
    const service = await serviceKey(ctx.t);
    const spend = {
      api_key_id: key.id,
      feature: "comic",
      people: "one",
      quantity: 201,
      idempotency_key: "p-1",
    };
    expect((await consumeRequest(ctx.t, service, spend)).status).toBe(200);
    const refund = await adminCall(ctx.t, `/v1/admin/payments/${pack?.id}/refund`, ada.accessToken, {
      amount: 1000,
      reason: "Goodwill",
      idempotency_key: "part-1",
    });
    expect(refund.status, await refund.clone().text()).toBe(202);
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();

    const opened = await open({ invoice_number: pack?.number });
    expect(opened.status, await opened.clone().text()).toBe(201);
    const { dispute_id } = (await opened.json()) as { dispute_id: string };
    // The dispute is for what was not refunded, as Stripe's would be: €49.50, not the €59.50 paid.
    const disputed = (await disputeEvents("charge.dispute.created")).find((d) => d.dispute.id === dispute_id);
    expect((disputed?.dispute as { amount?: number } | undefined)?.amount).toBe(4950);
    expect((await close(dispute_id, { status: "lost" })).status).toBe(200);
    await ctx.t.tasks.idle();
    const closedAs = (await disputeEvents("charge.dispute.closed")).find((d) => d.dispute.id === dispute_id);
    expect((closedAs?.dispute as { amount?: number } | undefined)?.amount).toBe(4950);

    const res = await getJson(ctx.t.app, `/v1/billing/invoices/${pack?.id}`, user.accessToken);
    expect(res.status).toBe(200);
    const invoice = (await res.json()) as InvoiceSummary & { taken_back?: number };
    expect(invoice).toMatchObject({ status: "dispute_lost", refunded: 5950, taken_back: 4950 });
    const [mail] = (await ctx.t.mails()).filter((m) => m.subject.includes("on hold"));
    expect(mail?.text.replace(/\s+/g, " ")).toContain(
      `The bank took back the payment of €49.50 for invoice ${pack?.number} after a dispute`,
    );
    // The PDF says the same: €10.00 refunded, €49.50 taken back.
    const pdf = await getJson(ctx.t.app, `/v1/billing/invoices/${pack?.id}/pdf`, user.accessToken);
    expect(pdf.status).toBe(200);
    const text = (await pdfText(new Uint8Array(await pdf.arrayBuffer()))).replace(/\s+/g, " ");
    expect(text).toContain("€10.00 refunded");
    expect(text).toContain("€49.50 taken back by the buyer's bank after a dispute");
    // The console's payments list splits the refunded column the same way.
    const [payment] = await customerPayments(ctx.t, user.id, ada.accessToken);
    expect(payment).toMatchObject({ status: "dispute_lost", refunded: 5950, taken_back: 4950 });
    expect(payment?.credit_notes.map((n) => n.total)).toEqual([1000]);
  });

  it("a plan's checkout refuses the dispute card, saying it is for credit packs", async () => {
    const user = await verifiedUser(ctx.t, "dispplan");
    const res = await payAt(
      ctx.t,
      await openSubscriptionCheckout(ctx.t, user.accessToken, "A"),
      DISPUTE_CARD,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(CARD_DISPUTE_ONE_OFF_MESSAGE);
    expect((await me(ctx.t, user.accessToken)).subscription.status).not.toBe("active");
  });
});
