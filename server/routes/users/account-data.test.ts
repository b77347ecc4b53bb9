// The account's data on PGlite and PostgreSQL: the export holds everything the contract lists and
// no secret; deletion ends the subscription, keys and tokens, erases what is personal, keeps the
// invoices, and frees the username and e-mail.
import { randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emailSchema } from "../../../contract/account.ts";
import type { AdminLedgerEntry } from "../../../contract/admin.ts";
import { DETAIL } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { deletedEmail, deletedName } from "../../accounts/account-deletion.ts";
import { queueBillingMail } from "../../billing/billing-mails.ts";
import {
  billingCustomers,
  billingMails,
  checkoutSessions,
  creditGrants,
  emailChanges,
  invoices,
  knownBrowsers,
  localSubscriptions,
  organizations,
  users,
} from "../../db/schema/index.ts";
import { disputeEvent } from "../../payments/local/event-builders.ts";
import { newStripeId } from "../../payments/stripe/format.ts";
import { adminCall, adminGet, auditRowsAbout, customerPayments, staffMember } from "../../testing/admin.ts";
import { bearer, consumeRequest, createKey, introspect, serviceKey } from "../../testing/api-access.ts";
import {
  fromIp,
  getJson,
  login,
  postJson,
  register,
  registration,
  verifiedUser,
} from "../../testing/api-client.ts";
import { saveCard, settingsOf, settleAll, turnOn } from "../../testing/auto-top-up.ts";
import {
  me,
  openSubscriptionCheckout,
  openTopUpCheckout,
  payAndSettle,
  payAt,
  sendWebhook,
  subscribe,
} from "../../testing/billing.ts";
import { createTeam } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { teamOrg } from "../../testing/team-org.ts";
import { callAs, turnOnTwoFactor } from "../../testing/two-factor.ts";

describe.each(TEST_DATABASES)("the account's data (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const remove = (token: string, confirm: unknown) =>
    callAs(ctx.t, "/v1/users/me", token, { confirm }, "DELETE");

  it("exports the account, billing, ledger, invoices, key metadata, security events and every charge", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "A");
    const key = await createKey(ctx.t, ann.accessToken, { name: "Render farm" });
    const alert = await ctx.t.app.request("/v1/users/me/low-balance-alert", {
      method: "PUT",
      headers: { ...bearer(ann.accessToken), "Content-Type": "application/json" },
      body: JSON.stringify({ threshold: 40 }),
    });
    expect(alert.status).toBe(200);
    const service = await serviceKey(ctx.t);
    for (let i = 0; i < 3; i++) {
      const res = await consumeRequest(ctx.t, service, {
        api_key_id: key.id,
        feature: "standard-filter",
        people: "one",
        idempotency_key: `job-${i}`,
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const res = await getJson(ctx.t.app, "/v1/users/me/export", ann.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="account-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const text = await res.text();
    const data = JSON.parse(text) as Record<string, unknown> & {
      account: Record<string, unknown>;
      charges: Record<string, unknown>[];
      invoices: unknown[];
      api_keys: Record<string, unknown>[];
      credit_ledger: unknown[];
      security_events: { action: string }[];
      passkeys: unknown[];
    };
    expect(data.account).toMatchObject({
      username: "ann",
      email: ann.email,
      two_factor: false,
      low_balance_threshold: 40,
    });
    expect(data.invoices.length).toBeGreaterThan(0);
    expect(data.credit_ledger.length).toBeGreaterThanOrEqual(2);
    expect(data.api_keys).toEqual([expect.objectContaining({ name: "Render farm", prefix: key.prefix })]);
    expect(data.charges).toHaveLength(3);
    expect(data.charges[0]).toMatchObject({ feature: "standard-filter", credits: 1, api_key: key.prefix });
    expect(data.security_events.map((e) => e.action)).toContain("login.succeeded");
    expect(data.passkeys).toEqual([]);
    // Never a secret: not the key, not its hash.
    expect(text).not.toContain(key.key);
  });

  // QA, LOW: "credit_ledger" listed only the grants, with what is left of each: no dispute, refund,
  // staff change or spend; the account had no dispute hold; a lost dispute's invoice read "refunded".
  it("exports every ledger entry as the console lists it, the dispute hold and each payment's dispute", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const ada = await staffMember(ctx.t, "ada", "admin");
    await subscribe(ctx.t, ann.accessToken, "A");
    const path = await openTopUpCheckout(ctx.t, ann.accessToken, "500");
    await payAndSettle(ctx.t, path);
    const [session] = await ctx.database.db
      .select({ paymentIntentId: checkoutSessions.paymentIntentId })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, path.split("/").pop() ?? ""));
    const pack = (await customerPayments(ctx.t, ann.id, ada.accessToken)).find((p) =>
      p.description.includes("500"),
    );
    if (!pack?.invoice_number || !session?.paymentIntentId) throw new Error("no top-up");
    const staff = async (path: string, body: Record<string, unknown>) => {
      const res = await adminCall(ctx.t, path, ada.accessToken, {
        reason: "Ticket 4711: internal words",
        idempotency_key: `k-${Math.random()}`,
        ...body,
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      ctx.t.clock.advance(1000);
    };
    await staff(`/v1/admin/customers/${ann.id}/credits`, { amount: 25, note: "Sorry for the outage" });
    await staff(`/v1/admin/customers/${ann.id}/credits`, { amount: -5 });
    // Staff's manual charge: every credit of the plan and the free ones, and 300 of the pack's 500.
    const spent = await postJson(
      ctx.t.app,
      "/v1/credits/consume",
      { user_id: ann.id, amount: 1370, reason: "internal job", idempotency_key: "spend-1" },
      bearer(ada.accessToken),
    );
    expect(spent.status, await spent.clone().text()).toBe(200);
    // €10 of the pack refunded by support before the dispute: its credit note says so, and the
    // bank takes back the rest.
    await staff(`/v1/admin/payments/${pack.id}/refund`, { amount: 1000 });
    await ctx.t.local.runJob();
    await ctx.t.tasks.idle();
    const dispute = async (type: "created" | "closed", status: "needs_response" | "lost") => {
      const created = Math.floor(ctx.t.clock.now().getTime() / 1000);
      const event = disputeEvent({ eventId: newStripeId("evt"), created }, type, {
        id: "dp_1",
        chargeId: "ch_pack",
        paymentIntentId: session.paymentIntentId as string,
        amount: pack.total,
        currency: "eur",
        status,
        created,
      });
      expect((await sendWebhook(ctx.t, event)).status).toBe(200);
      await ctx.t.tasks.idle();
      ctx.t.clock.advance(1000);
    };
    await dispute("created", "needs_response");
    await dispute("closed", "lost");

    const res = await getJson(ctx.t.app, "/v1/users/me/export", ann.accessToken);
    expect(res.status).toBe(200);
    const text = await res.text();
    const data = JSON.parse(text) as {
      account: { dispute_hold_at: string | null };
      ledger: AdminLedgerEntry[];
      credit_ledger: { kind: string; remaining: number }[];
      invoices: {
        id: string;
        status: string;
        refunded: number;
        taken_back?: number;
        dispute?: string | null;
        document?: string;
      }[];
    };
    // The console's ledger, every page of it, word for word.
    const console = await adminGet<{ data: AdminLedgerEntry[]; next_cursor: string | null }>(
      ctx.t,
      `/v1/admin/customers/${ann.id}/ledger`,
      ada.accessToken,
    );
    expect(console.next_cursor).toBeNull();
    expect(data.ledger).toEqual(console.data);
    expect(data.ledger.map((l) => [l.kind, l.description])).toEqual(
      expect.arrayContaining([
        ["dispute_lost", `Dispute lost: held and unspent credits dropped (${pack.invoice_number})`],
        ["dispute_freeze", `Held while the payment is disputed (${pack.invoice_number})`],
        ["operator_take_back", "Taken back by staff"],
        ["grant", "Goodwill credits: Sorry for the outage"],
        ["spend", "Manual charge"],
      ]),
    );
    // What is left of each grant stays where it was.
    expect(data.credit_ledger.map((g) => g.kind)).toEqual(expect.arrayContaining(["topup", "subscription"]));
    expect(data.account.dispute_hold_at).not.toBeNull();
    const invoice = data.invoices.find((i) => i.id === pack.id);
    expect(invoice).toMatchObject({
      status: "dispute_lost",
      dispute: "lost",
      refunded: 5950,
      taken_back: 4950,
    });
    // As the invoice and the console's payments give it; no other row has one.
    const page = await getJson(ctx.t.app, `/v1/billing/invoices/${pack.id}`, ann.accessToken);
    expect(((await page.json()) as { taken_back?: number }).taken_back).toBe(4950);
    const paid = (await customerPayments(ctx.t, ann.id, ada.accessToken)).find((p) => p.id === pack.id);
    expect(paid?.taken_back).toBe(4950);
    expect(data.invoices.filter((i) => i.id !== pack.id).map((i) => i.dispute)).not.toContain("lost");
    expect(data.invoices.filter((i) => "taken_back" in i)).toHaveLength(1);
    // Never staff's names nor their internal reasons: the customer does not see them anywhere.
    expect(text).not.toMatch(/\bada\b|Ticket 4711|internal job/);
  });

  it("streams an account without charges as valid JSON too, and asks for the password after 10 minutes", async () => {
    const bob = await verifiedUser(ctx.t, "bob");
    const fresh = await getJson(ctx.t.app, "/v1/users/me/export", bob.accessToken);
    expect((JSON.parse(await fresh.text()) as { charges: unknown[] }).charges).toEqual([]);
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const stale = await getJson(ctx.t.app, "/v1/users/me/export", bob.accessToken);
    expect(stale.status).toBe(403);
    expect(await stale.json()).toEqual({
      detail: DETAIL.reauthRequired,
      reauth_required: true,
      methods: ["password"],
      code_required: false,
    });
  });

  it("exports every invoice, past the latest 200 the billing history shows", async () => {
    const bob = await verifiedUser(ctx.t, "bob");
    const party = { name: "Bob", country: "DE", vatId: null };
    const at = ctx.t.clock.now();
    // An auto top-up customer reaches 200 invoices within weeks (up to 10 packs a day).
    await ctx.t.deps.db.insert(invoices).values(
      Array.from(
        { length: 205 },
        (_, i) =>
          ({
            id: randomUUID(),
            userId: bob.id,
            fulfilmentKey: `topup:bob-${i}`,
            provider: "local",
            kind: "topup",
            status: "paid",
            issuedAt: new Date(at.getTime() - i * 60_000),
            description: "500 credits",
            currency: "eur",
            net: 500,
            tax: 95,
            total: 595,
            seller: party,
            buyer: party,
            createdAt: at,
            updatedAt: at,
          }) as typeof invoices.$inferInsert,
      ),
    );
    const history = await getJson(ctx.t.app, "/v1/billing/invoices", bob.accessToken);
    expect(((await history.json()) as { data: unknown[] }).data).toHaveLength(200);
    const exported = await getJson(ctx.t.app, "/v1/users/me/export", bob.accessToken);
    expect((JSON.parse(await exported.text()) as { invoices: unknown[] }).invoices).toHaveLength(205);
  });

  it("deletes: the plan ends now, keys and tokens stop, personal data goes, invoices stay, the names are free", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "A");
    const key = await createKey(ctx.t, ann.accessToken);
    const { accessToken } = await turnOnTwoFactor(ctx.t, ann.accessToken);
    // An address change half done: it goes with the account, as do the browsers it was seen in.
    expect(
      (await callAs(ctx.t, "/v1/users/me/email", accessToken, { email: "ann.next@example.com" })).status,
    ).toBe(202);
    const invoicesBefore = await ctx.database.db.select().from(invoices).where(eq(invoices.userId, ann.id));
    expect(invoicesBefore.length).toBeGreaterThan(0);

    const wrong = await remove(accessToken, "Ann");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ detail: DETAIL.deleteConfirmMismatch });
    const done = await remove(accessToken, "ann");
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ detail: DETAIL.accountDeleted });

    expect((await getJson(ctx.t.app, "/v1/users/me", accessToken)).status).toBe(401);
    expect(await introspect(ctx.t, await serviceKey(ctx.t), key.key)).toEqual({ active: false });
    const [row] = await ctx.database.db.select().from(users).where(eq(users.id, ann.id));
    expect(row).toMatchObject({
      username: deletedName(ann.id),
      email: deletedEmail(ann.id),
      emailVerified: false,
    });
    expect(row?.deletedAt).not.toBeNull();
    const [customer] = await ctx.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.userId, ann.id));
    expect(customer).toMatchObject({ name: null, vatId: null });
    expect(await ctx.database.db.select().from(emailChanges).where(eq(emailChanges.userId, ann.id))).toEqual(
      [],
    );
    expect(
      await ctx.database.db.select().from(knownBrowsers).where(eq(knownBrowsers.userId, ann.id)),
    ).toEqual([]);
    const subs = await ctx.database.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.userId, ann.id));
    expect(subs.every((s) => s.status === "canceled")).toBe(true);
    // Invoices stay as issued, with the buyer as it was on the day.
    expect(await ctx.database.db.select().from(invoices).where(eq(invoices.userId, ann.id))).toEqual(
      invoicesBefore,
    );
    expect((await login(ctx.t, "ann")).status).toBe(400);
    const [mail] = (await ctx.t.mails()).filter(
      (m) => m.to === ann.email && m.subject.includes("was deleted"),
    );
    expect(mail?.text).toContain("Invoices and payment records are kept");
    expect((await auditRowsAbout(ctx.t, ann.id)).map((r) => r.action)).toContain("account.deleted");

    // The username and the address register again, as a new account.
    const again = await register(ctx.t, "ann", { email: ann.email });
    expect(again.id).not.toBe(ann.id);
  });

  // QA, MEDIUM: the deletion's own transaction ended the plan and turned auto top-up off "because
  // the paid plan ended", and both mails went out after it: "you are on the Free plan now, credits
  // stay yours, see the plans" and "turning it on again asks for your consent, open Billing".
  it("mails only the deletion: not the plan's end, nor auto top-up turned off, once the provider's events are in", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "A");
    const card = await saveCard(ctx.t, ann.id, ann.id);
    await turnOn(ctx.t, ann.id, card.paymentMethodId);
    await settleAll(ctx.t);
    const before = new Set((await ctx.t.mails()).map((m) => m.id));
    const had = await me(ctx.t, ann.accessToken);
    expect(had.credit_balance).toBeGreaterThan(0);
    const daysLeft = Math.ceil(
      (Date.parse(had.subscription.expires_at ?? "") - ctx.t.clock.now().getTime()) / 86_400_000,
    );
    expect(daysLeft).toBeGreaterThan(1);

    expect((await remove(ann.accessToken, "ann")).status).toBe(200);
    // The local provider's events about the ended subscription and the detached card, and the job's
    // sending of whatever is still queued.
    await settleAll(ctx.t);
    expect(await settingsOf(ctx.t, ann.id)).toMatchObject({ status: "off", enabled: false });
    const after = (await ctx.t.mails()).filter((m) => !before.has(m.id));
    expect(after.map((m) => m.subject)).toEqual(["Your GenAI Studio account was deleted"]);
    // That one mail says what the deletion ended, as a team's deletion mail does (8e3ad4e): the
    // plan, at once and without a refund for its paid days, and the credits, as the account had them.
    const text = (after[0]?.text ?? "").replace(/\s+/g, " ");
    expect(text).toContain(
      `This confirms that your ${had.subscription.plan} subscription ended then, at once and without a refund for the ${daysLeft} paid days left, and is not renewed.`,
    );
    expect(text).toContain(
      `Your ${had.credit_balance.toLocaleString("en-US")} credits were written off: they can no longer be used.`,
    );
    // Nothing left in the outbox to go out later, to the address the erasure removed.
    const queued = await ctx.database.db.select().from(billingMails).where(eq(billingMails.userId, ann.id));
    expect(queued.filter((m) => m.sentAt === null)).toEqual([]);
    expect(queued.map((m) => m.kind)).not.toContain("subscription_ended");
    // The mails sent before keep their keys (no event mails twice), not the person's address or words.
    expect(queued.map((m) => m.kind)).toContain("receipt");
    for (const mail of queued)
      expect([mail.to, mail.subject, mail.text, mail.html]).toEqual(["", "", "", ""]);
  });

  // Review (helper 78, MEDIUM 2): a team's mail to its second recipient is keyed by that address
  // ("|to:<address>"), which outlived the erasure of the recipient's account.
  it("leaves no billing mail naming an erased billing member, in its key either", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const bob = await verifiedUser(ctx.t, "bob");
    const org = await teamOrg(ctx.t, "Acme", [
      { id: ann.id, role: "owner" },
      { id: bob.id, role: "billing" },
    ]);
    const build = (user: { email: string }) => ({
      to: user.email,
      subject: "Receipt",
      text: "t",
      html: "<p>t</p>",
    });
    const queued = await queueBillingMail(
      ctx.t.deps.db,
      { userId: org, kind: "receipt", dedupeKey: "receipt:1", build },
      ctx.t.clock.now(),
    );
    expect(queued).toBe(true);
    await settleAll(ctx.t);
    const keysBefore = (
      await ctx.database.db.select().from(billingMails).where(eq(billingMails.userId, org))
    ).map((m) => m.dedupeKey);
    expect(keysBefore).toContain(`receipt:1|to:${bob.email}`);
    expect((await remove(bob.accessToken, "bob")).status).toBe(200);
    const rows = await ctx.database.db.select().from(billingMails).where(eq(billingMails.userId, org));
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(bob.email);
    // The owner's copy is the company's, untouched; the event's own key stays for its redelivery.
    expect(rows.map((r) => r.to)).toContain(ann.email);
    expect(rows.map((r) => r.dedupeKey)).toContain("receipt:1");
  });

  // Review: a mail queued after the erasure (a late payment's receipt, a refund's or a dispute's
  // word) went to the account's pseudonym, `deleted~<id>@deleted.invalid`. Decision 021, "Mails
  // after the erasure": a deleted account is nobody's recipient, and its personal organisation's
  // billing e-mail went with it, so nothing is queued; a row queued to the pseudonym before is
  // dropped, not sent.
  it("mails nobody at the pseudonym: nothing is queued after the erasure, and what was is dropped", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "A");
    expect((await remove(ann.accessToken, "ann")).status).toBe(200);
    await settleAll(ctx.t);
    const before = new Set((await ctx.t.mails()).map((m) => m.id));
    const late = (user: { email: string }) => ({
      to: user.email,
      subject: "Your receipt",
      text: "A late receipt",
      html: "<p>A late receipt</p>",
    });
    const now = ctx.t.clock.now();
    expect(
      await queueBillingMail(
        ctx.t.deps.db,
        { userId: ann.id, kind: "receipt", dedupeKey: "receipt:late", build: late },
        now,
      ),
    ).toBe(false);
    // Queued to the pseudonym before this change: the sender drops it and says so.
    await ctx.database.db.insert(billingMails).values({
      id: randomUUID(),
      userId: ann.id,
      kind: "receipt",
      dedupeKey: "receipt:queued-before",
      ...late({ email: deletedEmail(ann.id) }),
      createdAt: now,
    });
    await settleAll(ctx.t);
    const after = (await ctx.t.mails()).filter((m) => !before.has(m.id));
    expect(after).toEqual([]);
    const rows = await ctx.database.db.select().from(billingMails).where(eq(billingMails.userId, ann.id));
    expect(rows.filter((r) => ["receipt:late", "receipt:queued-before"].includes(r.dedupeKey))).toEqual([]);
    expect(rows.map((r) => r.to)).not.toContain(deletedEmail(ann.id));
    expect(ctx.t.logs.join("\n")).toContain(
      "Billing mail dropped: addressed to a domain that never receives mail",
    );
  });

  // Security review, MEDIUM 3: whoever knew an id (a team's co-member sees it) registered
  // `<id>@deleted.invalid`, the address the erasure gave the account; the unique index then failed
  // every deletion of it with 500, after its lone teams were deleted and its plan ended.
  it("cannot be blocked by an account that took the deleted account's address before", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    await subscribe(ctx.t, ann.accessToken, "A");
    const solo = await createTeam(ctx.t, ann, "Solo");
    // Registered before registration refused `.invalid` (the row as that registration left it,
    // verified even): it stays, signs in, and can delete itself too.
    const mallory = await verifiedUser(ctx.t, "mallory");
    await ctx.database.db
      .update(users)
      .set({ email: `${ann.id}@deleted.invalid` })
      .where(eq(users.id, mallory.id));
    const old = { user: mallory };

    const done = await remove(ann.accessToken, "ann");
    expect(done.status, await done.clone().text()).toBe(200);
    const rows = await ctx.database.db
      .select({ id: users.id, email: users.email, deletedAt: users.deletedAt })
      .from(users)
      .where(inArray(users.id, [ann.id, old.user.id]));
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.email, r.deletedAt !== null]]))).toEqual({
      [ann.id]: [deletedEmail(ann.id), true],
      [old.user.id]: [`${ann.id}@deleted.invalid`, false],
    });
    const [soloRow] = await ctx.database.db.select().from(organizations).where(eq(organizations.id, solo.id));
    expect(soloRow?.deletedAt).not.toBeNull();
    const subs = await ctx.database.db
      .select()
      .from(localSubscriptions)
      .where(eq(localSubscriptions.userId, ann.id));
    expect(subs.length).toBeGreaterThan(0);
    expect(subs.every((s) => s.status === "canceled")).toBe(true);

    expect((await getJson(ctx.t.app, "/v1/users/me", mallory.accessToken)).status).toBe(200);
    expect((await remove(mallory.accessToken, "mallory")).status).toBe(200);
    const [gone] = await ctx.database.db.select().from(users).where(eq(users.id, old.user.id));
    expect(gone?.email).toBe(deletedEmail(old.user.id));
  });

  it("gives a deleted account an address no registration can take", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const pseudonym = deletedEmail(ann.id);
    expect(emailSchema.safeParse(pseudonym).success).toBe(false);
    const taken = await postJson(
      ctx.t.app,
      "/v1/register",
      registration("mallory", { email: pseudonym }),
      fromIp(),
    );
    expect(taken.status).toBe(422);
    expect((await remove(ann.accessToken, "ann")).status).toBe(200);
    const [row] = await ctx.database.db.select().from(users).where(eq(users.id, ann.id));
    expect(row?.email).toBe(pseudonym);
  });

  it("closes the checkouts left open: none can be paid for the deleted account", async () => {
    // A subscriber's top-up (deleted through the plan's ending) and a visitor's first plan.
    const cora = await verifiedUser(ctx.t, "cora");
    await subscribe(ctx.t, cora.accessToken, "A");
    const pack = await openTopUpCheckout(ctx.t, cora.accessToken, "500");
    const dan = await verifiedUser(ctx.t, "dan");
    const plan = await openSubscriptionCheckout(ctx.t, dan.accessToken, "B");
    expect((await remove(cora.accessToken, "cora")).status).toBe(200);
    expect((await remove(dan.accessToken, "dan")).status).toBe(200);
    for (const path of [pack, plan]) {
      const paid = await payAt(ctx.t, path);
      expect(paid.status).toBe(410);
      expect(await paid.text()).toContain("Checkout expired");
    }
    await ctx.t.tasks.idle();
    const open = await ctx.t.deps.db
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.status, "open"));
    expect(open).toEqual([]);
    const grants = await ctx.t.deps.db
      .select({ userId: creditGrants.userId, kind: creditGrants.kind })
      .from(creditGrants)
      .where(inArray(creditGrants.userId, [cora.id, dan.id]));
    // Cora's plan's first month and the free credits; no pack, no plan for Dan.
    expect(grants.filter((g) => g.userId === dan.id).map((g) => g.kind)).toEqual(["free"]);
    expect(
      grants
        .filter((g) => g.userId === cora.id)
        .map((g) => g.kind)
        .sort(),
    ).toEqual(["free", "subscription"]);
  });

  it("deletes an account without a plan, and refuses without the password of the last 10 minutes", async () => {
    const bob = await verifiedUser(ctx.t, "bob");
    ctx.t.clock.advance(10 * 60_000 + 1000);
    const stale = await remove(bob.accessToken, "bob");
    expect(stale.status).toBe(403);
    const res = await callAs(ctx.t, "/v1/reauth", bob.accessToken, { password: "Abcdef1!" });
    const { access_token } = (await res.json()) as { access_token: string };
    const had = await me(ctx.t, access_token);
    expect((await remove(access_token, "bob")).status).toBe(200);
    expect((await getJson(ctx.t.app, "/v1/users/me", access_token)).status).toBe(401);
    // Without a plan (the transaction that would end one refused): the free credits, and no plan.
    const [mail] = (await ctx.t.mails()).filter(
      (m) => m.to === bob.email && m.subject.includes("was deleted"),
    );
    const text = (mail?.text ?? "").replace(/\s+/g, " ");
    expect(had.credit_balance).toBeGreaterThan(0);
    expect(text).toContain(
      `Your ${had.credit_balance} credits were written off: they can no longer be used.`,
    );
    expect(text).not.toContain("subscription");
    expect(
      (await ctx.t.app.request("/v1/users/me", { method: "DELETE", headers: bearer("nope") })).status,
    ).toBe(401);
  });
});
