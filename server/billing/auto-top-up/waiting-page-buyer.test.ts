// The page of an auto top-up waiting for the bank (GET /v1/billing/invoices/{id} of its row) names
// the buyer from the billing details on file today, as its invoice will once it is paid
// (auto-top-up/settle.ts): the address only when it is in the country the row is taxed for. An
// invoice taxed as German does not carry a Vienna address; the page does not promise one.
import { describe, expect, it } from "vitest";
import type { Invoice, InvoiceSummary } from "../../../contract/invoices.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { staffMember } from "../../testing/admin.ts";
import { getJson, postJson, verifiedUser } from "../../testing/api-client.ts";
import { AUTO_TOP_UP_CARDS, saveCard, settleAll, turnOn } from "../../testing/auto-top-up.ts";
import { subscribe } from "../../testing/billing.ts";
import { putBillingDetails } from "../../testing/billing-details.ts";
import { useTestApp } from "../../testing/suite.ts";
import type { TestApp } from "../../testing/test-app.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("the page of an auto top-up waiting for the bank (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });

  /** A subscriber whose card always asks for authentication, with a payment now waiting for it. */
  async function waitingPayment(t: TestApp) {
    const user = await verifiedUser(t, "ann");
    await subscribe(t, user.accessToken, "A");
    const card = await saveCard(t, user.id, user.id, AUTO_TOP_UP_CARDS.alwaysAuthenticates);
    await turnOn(t, user.id, card.paymentMethodId);
    const admin = await staffMember(t, "boss", "admin");
    const spent = await postJson(
      t.app,
      "/v1/credits/consume",
      { user_id: user.id, amount: 1000, reason: "render", idempotency_key: "spend-1" },
      { Authorization: `Bearer ${admin.accessToken}` },
    );
    expect(spent.status).toBe(200);
    await settleAll(t);
    const list = await getJson(t.app, "/v1/billing/invoices", user.accessToken);
    const rows = ((await list.json()) as { data: InvoiceSummary[] }).data;
    const waiting = rows.find((r) => r.status === "authentication_required");
    if (!waiting) throw new Error("no payment waiting for the bank");
    return { user, waiting };
  }

  const pageOf = async (t: TestApp, token: string, id: string) => {
    const res = await getJson(t.app, `/v1/billing/invoices/${id}`, token);
    expect(res.status).toBe(200);
    return (await res.json()) as Invoice;
  };

  /** The buyer's details saved with `address` while the payment waits; then the payment's page. */
  async function movedTo(t: TestApp, address: [string, string, string, string]) {
    const { user, waiting } = await waitingPayment(t);
    const [line1, postal_code, city, country] = address;
    await putBillingDetails(t, user.accessToken, {
      name: "Erika Mustermann",
      email: "books@example.com",
      address: { line1, postal_code, city, country },
    });
    return { waiting, page: await pageOf(t, user.accessToken, waiting.id) };
  }

  it("leaves out an address in another country than the row's, as the paid invoice will", async () => {
    // The row was taxed for Germany, the checkout's country; the buyer moves to Vienna meanwhile.
    const { waiting, page } = await movedTo(ctx.t, ["Ringstraße 1", "1010", "Wien", "AT"]);
    expect(waiting.tax_treatment).toBe("domestic");
    expect(page.buyer).toMatchObject({
      name: "Erika Mustermann",
      address: null,
      country: "DE",
      email: "books@example.com",
    });
    // What the row was taxed for stays as it was.
    expect(page).toMatchObject({ tax_treatment: "domestic", total: waiting.total, tax: waiting.tax });
  }, 90_000);

  it("shows the address on file of the row's own country too", async () => {
    const { page } = await movedTo(ctx.t, ["Unter den Linden 1", "10117", "Berlin", "DE"]);
    expect(page.buyer).toMatchObject({ address: "Unter den Linden 1\n10117 Berlin", country: "DE" });
  }, 90_000);
});
