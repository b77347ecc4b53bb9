// Billing for an organisation (ORGANISATIONS.md): the billing calls act on the organisation
// X-Organization names, by the caller's role there; the organisation pays with its own provider
// customer and billing e-mail; its billing mails go to the billing e-mail, the owners and the
// billing members, once each.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { BILLING_DETAILS_MESSAGES } from "../../../contract/billing-details-messages.ts";
import type { BillingDetails } from "../../../contract/invoices.ts";
import { VALIDATION } from "../../../contract/messages.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import {
  auditLog,
  billingCustomers,
  billingMails,
  checkoutSessions,
  vatIdChecks,
  webhookDeliveries,
} from "../../db/schema/index.ts";
import { VAT_ID_MESSAGES } from "../../domain/vat.ts";
import { stripeFixture } from "../../payments/local/stripe-fixtures.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import {
  advanceDays,
  checkoutPath,
  me,
  payAndSettle,
  sendWebhook,
  TIER,
  TOP_UP,
} from "../../testing/billing.ts";
import { topUpPurchase } from "../../testing/purchase-events.ts";
import { useTestApp } from "../../testing/suite.ts";
import { teamOrg } from "../../testing/team-org.ts";

describe.each(TEST_DATABASES)("billing for an organisation (%s)", (kind) => {
  const ctx = useTestApp(kind);

  const call = (method: string, path: string, token: string, org?: string, body?: unknown) =>
    ctx.t.app.request(path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        ...(org ? { "X-Organization": org } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const checkout = (token: string, org: string | undefined, tier: "A" | "B" = "A") =>
    call("POST", "/v1/create-checkout-session", token, org, {
      product: TIER(tier).product,
      price: TIER(tier).price,
    });

  /** Ann owns Acme; Bob is its billing member, Dan its manager, Carl a developer; Eve is no member. */
  async function acme() {
    const [ann, bob, carl, dan, eve] = await Promise.all(
      ["ann", "bob", "carl", "dan", "eve"].map((name) => verifiedUser(ctx.t, name)),
    );
    if (!ann || !bob || !carl || !dan || !eve) throw new Error("users");
    const org = await teamOrg(ctx.t, "Acme", [
      { id: ann.id, role: "owner" },
      { id: bob.id, role: "billing" },
      { id: carl.id, role: "developer" },
      { id: dan.id, role: "manager" },
    ]);
    return { ann, bob, carl, dan, eve, org };
  }

  /** Bob (billing) buys Tier A for Acme through the local checkout. */
  async function subscribeAcme(team: Awaited<ReturnType<typeof acme>>) {
    const res = await checkout(team.bob.accessToken, team.org);
    expect(res.status).toBe(200);
    await payAndSettle(ctx.t, checkoutPath(((await res.json()) as { url: string }).url));
  }

  it("owners and billing members start checkouts for the organisation; the others are refused", async () => {
    const team = await acme();
    for (const member of [team.carl, team.dan]) {
      const res = await checkout(member.accessToken, team.org);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: ORG_DETAIL.notAllowed });
    }
    const stranger = await checkout(team.eve.accessToken, team.org);
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toEqual({ detail: ORG_DETAIL.notFound });
    expect((await checkout(team.ann.accessToken, team.org)).status).toBe(200);
    expect((await checkout(team.bob.accessToken, team.org)).status).toBe(200);
    const sessions = await ctx.t.deps.db.select().from(checkoutSessions);
    expect(sessions.map((s) => s.userId)).toEqual([team.org, team.org]);
  });

  it("the organisation's plan is its own: the payer's personal plan stays Free", async () => {
    const team = await acme();
    await subscribeAcme(team);
    expect((await me(ctx.t, team.bob.accessToken)).subscription.plan).toBe("FREE");
    const ledger = await call("GET", "/v1/credits/ledger", team.dan.accessToken, team.org);
    expect(ledger.status).toBe(200);
    const { data } = (await ledger.json()) as { data: { kind: string; source: string }[] };
    expect(data.map((g) => g.kind)).toEqual(["subscription"]);
    // The ledger: everyone but developers.
    expect((await call("GET", "/v1/credits/ledger", team.carl.accessToken, team.org)).status).toBe(403);
    const personal = await call("GET", "/v1/credits/ledger", team.bob.accessToken);
    expect(((await personal.json()) as { data: { kind: string }[] }).data.map((g) => g.kind)).toEqual([
      "free",
    ]);
  });

  it("a second subscription of a team organisation answers 409 in the organisation's words", async () => {
    const team = await acme();
    await subscribeAcme(team);
    const again = await checkout(team.ann.accessToken, team.org, "B");
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: ORG_DETAIL.alreadySubscribed });
    // Bob's personal organisation is not looked at, and keeps the personal wording.
    expect((await checkout(team.bob.accessToken, undefined)).status).toBe(200);
  });

  it("plan changes, cancellation and top-ups act on the organisation, for owners and billing members", async () => {
    const team = await acme();
    await subscribeAcme(team);
    const refused = await call("POST", "/v1/update-subscription", team.dan.accessToken, team.org, {
      product_id: TIER("B").product,
    });
    expect(refused.status).toBe(403);
    const changed = await call("POST", "/v1/update-subscription", team.ann.accessToken, team.org, {
      product_id: TIER("B").product,
    });
    expect(changed.status).toBe(200);
    const answer = (await changed.json()) as {
      id: string;
      subscription: { plan: string; scheduled_plan: string };
    };
    expect(answer.id).toBe(team.ann.id);
    expect(answer.subscription).toMatchObject({ plan: "Tier A", scheduled_plan: "Tier B" });
    const topUp = await call("POST", "/v1/create-top-up-checkout", team.bob.accessToken, team.org, {
      product_id: TOP_UP("500").product,
    });
    expect(topUp.status).toBe(200);
    // Bob's personal organisation is on the Free plan: no top-ups there.
    const personalTopUp = await call("POST", "/v1/create-top-up-checkout", team.bob.accessToken, undefined, {
      product_id: TOP_UP("500").product,
    });
    expect(personalTopUp.status).toBe(403);
    expect((await call("POST", "/v1/cancel-subscription", team.carl.accessToken, team.org)).status).toBe(403);
    const cancelled = await call("POST", "/v1/cancel-subscription", team.bob.accessToken, team.org);
    expect(cancelled.status).toBe(200);
    expect(
      ((await cancelled.json()) as { subscription: { cancel_at_period_end: boolean } }).subscription,
    ).toMatchObject({ cancel_at_period_end: true });
  });

  it("invoices, billing details and the card page are for owners and billing members only", async () => {
    const team = await acme();
    await subscribeAcme(team);
    const list = await call("GET", "/v1/billing/invoices", team.bob.accessToken, team.org);
    expect(list.status).toBe(200);
    const [invoice] = ((await list.json()) as { data: { id: string }[] }).data;
    if (!invoice) throw new Error("no invoice");
    for (const path of [
      "/v1/billing/invoices",
      `/v1/billing/invoices/${invoice.id}`,
      "/v1/billing/details",
    ]) {
      for (const member of [team.carl, team.dan]) {
        expect((await call("GET", path, member.accessToken, team.org)).status).toBe(403);
      }
      expect((await call("GET", path, team.eve.accessToken, team.org)).status).toBe(404);
    }
    expect((await call("POST", "/v1/billing-portal-session", team.dan.accessToken, team.org)).status).toBe(
      403,
    );
    expect((await call("POST", "/v1/billing-portal-session", team.ann.accessToken, team.org)).status).toBe(
      200,
    );
    // The invoice is the organisation's: the payer's personal history does not have it.
    const personal = await call("GET", `/v1/billing/invoices/${invoice.id}`, team.bob.accessToken);
    expect(personal.status).toBe(404);
    // Its buyer's e-mail is the organisation's billing e-mail (the owner's), not the payer's.
    const shown = await call("GET", `/v1/billing/invoices/${invoice.id}`, team.ann.accessToken, team.org);
    expect(((await shown.json()) as { buyer: { email: string } }).buyer.email).toBe(team.ann.email);
  });

  it("the organisation has its own provider customer", async () => {
    const team = await acme();
    await subscribeAcme(team);
    await payAndSettle(
      ctx.t,
      checkoutPath(((await (await checkout(team.bob.accessToken, undefined)).json()) as { url: string }).url),
    );
    const customers = await ctx.t.deps.db.select().from(billingCustomers);
    expect(new Set(customers.map((c) => c.userId))).toEqual(new Set([team.org, team.bob.id]));
    expect(new Set(customers.map((c) => c.customerId)).size).toBe(2);
  });

  it("a declined renewal of the organisation's plan mails its billing e-mail, owners and billing members", async () => {
    const team = await acme();
    const details = {
      name: "Acme GmbH",
      email: "books@acme.test",
      address: { line1: "Hauptstr. 1", postal_code: "10115", city: "Berlin", country: "DE" },
    };
    expect((await call("PUT", "/v1/billing/details", team.ann.accessToken, team.org, details)).status).toBe(
      200,
    );
    const res = await checkout(team.bob.accessToken, team.org);
    await payAndSettle(
      ctx.t,
      checkoutPath(((await res.json()) as { url: string }).url),
      "4000 0000 0000 0341",
    );
    await advanceDays(ctx.t, 32);
    const failed = (await ctx.t.mails()).filter((m) => / failed/.test(m.subject));
    expect(failed.map((m) => m.to).sort()).toEqual(
      ["books@acme.test", team.ann.email, team.bob.email].sort(),
    );
    // The billing e-mail is greeted by the organisation's name; members by their own.
    expect(failed.find((m) => m.to === "books@acme.test")?.text).toContain("Acme");
    expect(failed.find((m) => m.to === team.bob.email)?.text).toContain("bob");
  });

  it("billing mails go to the owners and billing members, once each, whatever is redelivered", async () => {
    const team = await acme();
    await subscribeAcme(team);
    for (const delivery of await ctx.t.deps.db.select().from(webhookDeliveries)) {
      expect((await sendWebhook(ctx.t, delivery.payload)).status).toBe(200);
    }
    await ctx.t.tasks.idle();
    const receipts = (await ctx.t.mails()).filter((m) => /receipt/.test(m.subject));
    expect(receipts.map((m) => m.to).sort()).toEqual([team.ann.email, team.bob.email].sort());
    // The invoice link names the organisation: the invoice page reads it there, whichever
    // organisation the reader has chosen in the portal (their personal one would not find it).
    for (const receipt of receipts) {
      const link = new URL(receipt.links[0] ?? "");
      expect(link.pathname).toBe("/profile/billing/invoice");
      expect(link.searchParams.get("org")).toBe(team.org);
      const path = `/v1/billing/invoices/${link.searchParams.get("id")}`;
      expect((await call("GET", path, team.bob.accessToken, team.org)).status).toBe(200);
      expect((await call("GET", path, team.bob.accessToken)).status).toBe(404);
    }
    const rows = await ctx.t.deps.db.select().from(billingMails).where(eq(billingMails.userId, team.org));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.sentAt !== null)).toBe(true);
  });

  describe("billing details", () => {
    const ACME = {
      name: "Acme GmbH",
      email: "books@acme.test",
      address: { line1: "Hauptstr. 1", postal_code: "10115", city: "Berlin", country: "DE" },
      vat_id: "DE136695976",
    };
    const put = (token: string, org: string | undefined, body: unknown) =>
      call("PUT", "/v1/billing/details", token, org, body);

    it("owners and billing members give them; they are shown, audited and used from then on", async () => {
      const team = await acme();
      for (const member of [team.carl, team.dan]) {
        expect((await put(member.accessToken, team.org, ACME)).status).toBe(403);
      }
      expect((await put(team.eve.accessToken, team.org, ACME)).status).toBe(404);
      const before = await call("GET", "/v1/billing/details", team.bob.accessToken, team.org);
      expect(await before.json()).toEqual({
        details: null,
        billing_email: team.ann.email,
        can_update_payment_method: false,
      });
      const saved = await put(team.bob.accessToken, team.org, { ...ACME, vat_id: "de 136 695 976" });
      expect(saved.status).toBe(200);
      const expected = {
        details: {
          name: "Acme GmbH",
          country: "DE",
          vat_id: "DE136695976",
          // The local stand-in confirms a well-formed VAT ID at once.
          vat_id_status: "verified",
          email: "books@acme.test",
          address: { ...ACME.address, line2: null },
        },
        billing_email: "books@acme.test",
        can_update_payment_method: false,
      };
      expect(await saved.json()).toEqual(expected);
      const shown = await call("GET", "/v1/billing/details", team.ann.accessToken, team.org);
      expect(await shown.json()).toEqual(expected);
      // The payer's personal details are untouched.
      const personal = await call("GET", "/v1/billing/details", team.bob.accessToken);
      expect(((await personal.json()) as { details: unknown }).details).toBeNull();
      const [customer] = await ctx.t.deps.db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.userId, team.org));
      expect(customer?.customerId).toMatch(/^cus_/);
      const [entry] = await ctx.t.deps.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, "billing_details.change"));
      expect(entry).toMatchObject({ actorId: team.bob.id, subjectOrgId: team.org, subjectUserId: null });

      // The next payment's invoice names the organisation's details; its mails go to the billing
      // e-mail too.
      await subscribeAcme(team);
      const list = await call("GET", "/v1/billing/invoices", team.bob.accessToken, team.org);
      const [invoice] = ((await list.json()) as { data: { id: string }[] }).data;
      const one = await call("GET", `/v1/billing/invoices/${invoice?.id}`, team.bob.accessToken, team.org);
      expect(((await one.json()) as { buyer: unknown }).buyer).toMatchObject({
        email: "books@acme.test",
        address: "Hauptstr. 1\n10115 Berlin",
        country: "DE",
      });
      const receipts = (await ctx.t.mails()).filter((m) => /receipt/.test(m.subject));
      expect(receipts.map((m) => m.to).sort()).toEqual(
        ["books@acme.test", team.ann.email, team.bob.email].sort(),
      );
    });

    /** Stripe's customer.tax_id.updated for `value` of the customer `customerId`, signed (made `ago` seconds before now). */
    const taxIdChecked = (id: string, customerId: string, value: string, status: string, ago = 0) =>
      sendWebhook(ctx.t, {
        id,
        object: "event",
        type: "customer.tax_id.updated",
        created: Math.floor(ctx.t.clock.now().getTime() / 1000) - ago,
        livemode: false,
        data: {
          object: {
            ...stripeFixture("tax_id"),
            customer: customerId,
            value,
            verification: { status, verified_address: null, verified_name: null },
          },
        },
      });
    const detailsOf = async (token: string, org?: string) =>
      ((await (await call("GET", "/v1/billing/details", token, org)).json()) as BillingDetails).details;

    it("without a VAT ID there is no state; a new VAT ID is confirmed again", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const without = await put(user.accessToken, undefined, { ...ACME, vat_id: "" });
      expect(without.status).toBe(200);
      expect(((await without.json()) as BillingDetails).details).toMatchObject({
        vat_id: null,
        vat_id_status: null,
      });
      const [row] = await ctx.t.deps.db.select().from(billingCustomers);
      expect(row).toMatchObject({ vatId: null });
      expect(await ctx.t.deps.db.select().from(vatIdChecks)).toEqual([]);
      const withId = await put(user.accessToken, undefined, ACME);
      expect(((await withId.json()) as BillingDetails).details).toMatchObject({
        vat_id: "DE136695976",
        vat_id_status: "verified",
      });
    });

    it("Stripe's check of the VAT ID on file is kept and shown; a check of another value changes nothing", async () => {
      const team = await acme();
      expect((await put(team.bob.accessToken, team.org, ACME)).status).toBe(200);
      const [customer] = await ctx.t.deps.db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.userId, team.org));
      const customerId = customer?.customerId ?? "";
      // Another organisation with the same VAT ID: another customer's check is not Acme's.
      const other = await verifiedUser(ctx.t, "olga");
      expect((await put(other.accessToken, undefined, ACME)).status).toBe(200);

      // A check of a VAT ID replaced since (another value), and one for another customer: nothing.
      expect((await taxIdChecked("evt_old", customerId, "DE999999999", "unverified")).status).toBe(200);
      expect((await taxIdChecked("evt_other", "cus_nobody", "DE136695976", "unverified")).status).toBe(200);
      expect(await detailsOf(team.ann.accessToken, team.org)).toMatchObject({ vat_id_status: "verified" });

      // The check of the VAT ID on file, written as Stripe may write it: unverified, shown to Billing.
      expect((await taxIdChecked("evt_1", customerId, "de 136 695 976", "unverified")).status).toBe(200);
      expect(await detailsOf(team.ann.accessToken, team.org)).toMatchObject({
        vat_id: "DE136695976",
        vat_id_status: "unverified",
      });
      expect(await detailsOf(other.accessToken)).toMatchObject({ vat_id_status: "verified" });
      // A redelivery changes nothing more; a later check does.
      expect((await taxIdChecked("evt_1", customerId, "DE136695976", "verified")).status).toBe(200);
      expect(await detailsOf(team.ann.accessToken, team.org)).toMatchObject({ vat_id_status: "unverified" });
      expect((await taxIdChecked("evt_2", customerId, "DE136695976", "verified")).status).toBe(200);
      expect(await detailsOf(team.ann.accessToken, team.org)).toMatchObject({ vat_id_status: "verified" });
    });

    it("keeps the newer check of an ID, a check that comes before its ID, and reads an ID nobody checked as pending", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      expect((await put(user.accessToken, undefined, ACME)).status).toBe(200);
      const [customer] = await ctx.t.deps.db.select().from(billingCustomers);
      const customerId = customer?.customerId ?? "";
      ctx.t.clock.advance(60_000);
      // Stripe's "unverified" of a minute later, then its "pending" of when the ID was created.
      expect((await taxIdChecked("evt_new", customerId, "DE136695976", "unverified")).status).toBe(200);
      expect((await taxIdChecked("evt_old", customerId, "DE136695976", "pending", 60)).status).toBe(200);
      expect(await detailsOf(user.accessToken)).toMatchObject({ vat_id_status: "unverified" });
      // A check of an ID the customer gives only later (a checkout's event still on its way)…
      expect((await taxIdChecked("evt_early", customerId, "DE 811 569 869", "verified")).status).toBe(200);
      expect(await detailsOf(user.accessToken)).toMatchObject({ vat_id_status: "unverified" });
      // …counts once that ID is on file, here as an instance of the previous version writes it
      // (vat_id alone, during a rolling deploy).
      const onFile = (vatId: string) =>
        ctx.t.deps.db
          .update(billingCustomers)
          .set({ vatId })
          .where(eq(billingCustomers.customerId, customerId));
      await onFile("DE811569869");
      expect(await detailsOf(user.accessToken)).toMatchObject({
        vat_id: "DE811569869",
        vat_id_status: "verified",
      });
      // An ID no check is about is pending, never the state of the ID it replaced.
      await onFile("DE129273398");
      expect(await detailsOf(user.accessToken)).toMatchObject({
        vat_id: "DE129273398",
        vat_id_status: "pending",
      });
      // Stripe's check of the second the details are saved in wins over the save's own read of it.
      expect((await taxIdChecked("evt_same_second", customerId, "DE136695976", "unverified")).status).toBe(
        200,
      );
      expect((await put(user.accessToken, undefined, ACME)).status).toBe(200);
      expect(await detailsOf(user.accessToken)).toMatchObject({
        vat_id: "DE136695976",
        vat_id_status: "unverified",
      });
      // A second later, saving reads the provider's answer again.
      ctx.t.clock.advance(1000);
      expect((await put(user.accessToken, undefined, ACME)).status).toBe(200);
      expect(await detailsOf(user.accessToken)).toMatchObject({ vat_id_status: "verified" });
    });

    it.each([
      ["a VAT ID of another country", { vat_id: "FR40303265045" }, ["body", "vat_id"]],
      ["a malformed VAT ID", { vat_id: "DE12" }, ["body", "vat_id"]],
      [
        "an unknown country",
        { address: { ...ACME.address, country: "XX" }, vat_id: null },
        ["body", "address", "country"],
      ],
      ["no name", { name: " " }, ["body", "name"]],
      ["a malformed e-mail", { email: "books" }, ["body", "email"]],
      ["no city", { address: { ...ACME.address, city: "" } }, ["body", "address", "city"]],
    ])("%s answers 422 beside its field and saves nothing", async (_case, change, loc) => {
      const user = await verifiedUser(ctx.t, "ann");
      const res = await put(user.accessToken, undefined, { ...ACME, ...change });
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: { loc: (string | number)[] }[] };
      expect(detail.map((d) => d.loc)).toContainEqual(loc);
      expect(await ctx.t.deps.db.select().from(billingCustomers)).toEqual([]);
    });

    it("a wrong VAT ID is refused together with the other fields' refusals", async () => {
      const user = await verifiedUser(ctx.t, "ann");
      const res = await put(user.accessToken, undefined, { ...ACME, name: "", vat_id: "FR40303265045" });
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(detail.map((d) => [d.loc.join("."), d.msg])).toEqual([
        ["body.name", BILLING_DETAILS_MESSAGES.nameMissing],
        ["body.vat_id", VAT_ID_MESSAGES.otherCountry],
      ]);
    });

    // Registration, an address change and an invitation refuse these domains (auth/mailbox.ts):
    // invoices and billing mails sent there would never arrive. A team's details are refused alike.
    it("refuses an invoice address whose domain never receives mail, in registration's words", async () => {
      const team = await acme();
      const reserved = { loc: ["body", "email"], msg: VALIDATION.emailReserved, type: "value_error" };
      for (const email of [`${team.ann.id}@deleted.invalid`, "a@b.localhost", "Books@Acme.LOCALHOST"]) {
        const res = await put(team.ann.accessToken, team.org, { ...ACME, email });
        expect(await res.json()).toEqual({ detail: [reserved] });
        expect(res.status).toBe(422);
      }
      // Said together with the other fields' refusals: the form shows them all at once.
      const both = await put(team.ann.accessToken, undefined, {
        ...ACME,
        name: "",
        email: "a@b.localhost",
        vat_id: "FR40303265045",
      });
      expect(both.status).toBe(422);
      const { detail } = (await both.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(detail.map((d) => [d.loc.join("."), d.msg])).toEqual([
        ["body.name", BILLING_DETAILS_MESSAGES.nameMissing],
        ["body.email", VALIDATION.emailReserved],
        ["body.vat_id", VAT_ID_MESSAGES.otherCountry],
      ]);
      // A wrong VAT ID alone after a valid rest: both refusals of a well-formed body at once.
      const vatToo = await put(team.ann.accessToken, undefined, {
        ...ACME,
        email: "a@b.invalid",
        vat_id: "FR40303265045",
      });
      expect(
        ((await vatToo.json()) as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join(".")),
      ).toEqual(["body.email", "body.vat_id"]);
      expect(await ctx.t.deps.db.select().from(billingCustomers)).toEqual([]);
      // .test and .example stay allowed (tests and shared test servers use them), as at registration.
      expect(
        (await put(team.ann.accessToken, team.org, { ...ACME, email: "books@acme.example" })).status,
      ).toBe(200);
    });
  });

  it("a webhook finds the organisation by metadata.org_id, and an older object's user by its own id", async () => {
    const team = await acme();
    const ledgerKinds = async (org?: string) =>
      (
        (await (await call("GET", "/v1/credits/ledger", team.ann.accessToken, org)).json()) as {
          data: { kind: string }[];
        }
      ).data.map((g) => g.kind);
    // A new object names the organisation, whoever its user_id names.
    const named = JSON.parse(JSON.stringify(topUpPurchase(team.org, ctx.t.clock.now()).checkout()));
    named.data.object.client_reference_id = team.ann.id;
    named.data.object.metadata = { ...named.data.object.metadata, user_id: team.ann.id, org_id: team.org };
    expect((await sendWebhook(ctx.t, named)).status).toBe(200);
    expect(await ledgerKinds(team.org)).toEqual(["topup"]);
    // One made before organisations names only the user: their personal organisation pays.
    const old = JSON.parse(JSON.stringify(topUpPurchase(team.ann.id, ctx.t.clock.now()).checkout()));
    delete old.data.object.metadata.org_id;
    expect((await sendWebhook(ctx.t, old)).status).toBe(200);
    expect((await ledgerKinds()).sort()).toEqual(["free", "topup"]);
    expect(await ledgerKinds(team.org)).toEqual(["topup"]);
  });
});
