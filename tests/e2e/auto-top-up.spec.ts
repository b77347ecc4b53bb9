// Auto top-up in the browser (AUTO-TOP-UP.md "Pages"): an owner with a paid plan saves a card on the
// local checkout's card page, sees it, reads the consent text for the values chosen, agrees, and
// sees auto top-up active; an admin reads it in the console and turns it off with a reason. On a
// phone in the dark and a desktop in the light, swept with axe.
import type { APIRequestContext } from "@playwright/test";
import { type AutoTopUp, CARD_RETURN_TEXT } from "../../contract/auto-top-up.ts";
import type { InvoiceSummary } from "../../contract/invoices.ts";
import { DAILY_ATTEMPT_LIMIT, OFF_REASONS, PAUSE_REASONS } from "../../server/domain/auto-top-up.ts";
import { nextMidnightBerlin } from "../../server/domain/berlin-time.ts";
import { ADMIN_PAGE_TEXT } from "../../src/lib/admin-text.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../src/lib/auto-top-up-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { buyTierAViaForms, buyTopUpViaForms } from "../fixtures/checkout.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect as baseExpect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

test.describe.configure({ timeout: 180_000 });

const T = AUTO_TOP_UP_PAGE_TEXT;
/**
 * The section is a chunk of its own that loads after the details answer: on a busy machine (two
 * journeys in parallel on two cores) the first look at it after a page load takes longer than 5 s.
 */
const LOADED = { timeout: 30_000 };
/** Each answer (a PUT under the organisation's lock, the card's event) gets more than 5 s there too. */
const expect = baseExpect.configure({ timeout: 15_000 });
const F = T.form;

const VIEWS = [
  { name: "phone-dark", width: 390, height: 844, colorScheme: "dark" },
  { name: "desktop-light", width: 1280, height: 900, colorScheme: "light" },
] as const;

for (const view of VIEWS) {
  test(`an owner with a paid plan saves a card and turns auto top-up on (${view.name})`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    const user = await createVerifiedUser(request, "atu");
    const token = await tokenViaApi(request, user);
    await buyTierAViaForms(request, token, { name: "Erika Mustermann", country: "DE", vat_id: "" });

    await openSignedIn(page, token, "/profile/billing");
    const section = page.locator("[data-auto-top-up]");
    await expect(section.getByRole("heading", { name: T.title, exact: true })).toBeVisible(LOADED);
    await expect(section.locator("[data-auto-top-up-status]")).toContainText(T.statusLabels.off, LOADED);
    await expect(section).toContainText(T.card.none);
    // Before the first save the limit field shows the €200 it starts from: the meter does not
    // say there is no limit, but when the limit applies.
    const meter = section.locator("[data-auto-top-up-charges]");
    await expect(meter).toContainText(T.charges.unsaved);
    await expect(meter).not.toContainText("no limit");
    await expect(section.getByLabel(F.limit)).toHaveValue("200");
    // A threshold the pack cannot lift the balance above is refused beside its field, before sending.
    const threshold = section.getByLabel(F.threshold);
    await threshold.fill("5");
    await section.getByRole("button", { name: F.save, exact: true }).click();
    await expect(section.locator('[data-field-error="threshold"]')).toHaveText(T.errors.thresholdTooLow);
    await expect(threshold).toHaveAttribute("aria-invalid", "true");
    await threshold.fill("100");
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-no-card-${view.name}.png`),
      fullPage: true,
    });

    // The card is saved on the provider's page (the local checkout's stand-in) and comes back.
    await section.getByRole("button", { name: T.card.add }).click();
    await expect(page).toHaveURL(/\/_checkout\/setup\//);
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(/\/profile\/billing/);
    const back = page.locator("[data-auto-top-up] [data-card-return]");
    await expect(back).toBeVisible(LOADED);
    await expect(section.locator('[data-saved-card="4242"]')).toBeVisible({ timeout: 20_000 });
    await expect(back).toHaveText(T.card.arrived);
    expect(new URL(page.url()).searchParams.get("card")).toBeNull();
    await expect(section.getByRole("button", { name: T.card.replace })).toBeVisible();

    // Turning it on shows the text for exactly these values; it is sent only once agreed to.
    await section.getByRole("switch", { name: F.enabled }).check();
    await section.getByRole("button", { name: F.save, exact: true }).click();
    const consent = section.locator("[data-auto-top-up-consent]");
    await expect(consent.locator("[data-consent-text]")).toContainText(
      "We will charge your card ending 4242",
    );
    await expect(consent.locator("[data-consent-text]")).toContainText(
      "whenever this organisation's balance falls below 100 credits",
    );
    await consent.getByRole("button", { name: T.consent.confirmOn }).click();
    await expect(consent.locator('[data-field-error="consent"]')).toHaveText(T.consent.mustAgree);
    await consent.getByLabel(T.consent.agree).check();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-consent-${view.name}.png`),
      fullPage: true,
    });
    await consent.getByRole("button", { name: T.consent.confirmOn }).click();

    await expect(section.locator('[data-auto-top-up-status="active"]')).toContainText(T.statusLabels.active);
    await expect(page.getByText(F.turnedOn)).toBeVisible();
    await expect(consent).toHaveCount(0);
    await expect(meter).toContainText("€0.00 of €200.00 this month");
    await expect(meter).not.toContainText(T.charges.unsaved);
    // What was saved is what the API has after a reload.
    await page.reload();
    await expect(section.locator('[data-auto-top-up-status="active"]')).toBeVisible(LOADED);
    await expect(section.getByRole("switch", { name: F.enabled })).toBeChecked();
    await expect(section.locator('[data-saved-card="4242"]')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-active-${view.name}.png`),
      fullPage: true,
    });
  });
}

test("coming back without a card says no card was saved", async ({ page, request }) => {
  const user = await createVerifiedUser(request, "atuc");
  await openSignedIn(page, await tokenViaApi(request, user), "/profile/billing?card=cancelled");
  await expect(page.locator("[data-auto-top-up] [data-card-return]")).toHaveText(
    CARD_RETURN_TEXT.cancelled,
    LOADED,
  );
  expect(new URL(page.url()).searchParams.get("card")).toBeNull();
});

/** `card` saved through the local card page's form, as a browser posts it; waits until it is on file. */
async function saveCardViaApi(request: APIRequestContext, token: string, card: string): Promise<void> {
  const headers = { Authorization: `Bearer ${token}` };
  const setup = await request.post("/v1/billing/payment-method/setup", { headers });
  expect(setup.status(), await setup.text()).toBe(200);
  const path = new URL(((await setup.json()) as { url: string }).url).pathname;
  const saved = await request.post(path, { form: { card_number: card }, maxRedirects: 0 });
  expect(saved.status(), await saved.text()).toBe(303);
  await expect
    .poll(
      async () =>
        (
          (await (await request.get("/v1/billing/auto-top-up", { headers })).json()) as {
            card: { last4: string } | null;
          }
        ).card?.last4,
    )
    .toBe(card.slice(-4));
}

/**
 * A card saved through the local card page's form, as a browser posts it, and auto top-up on with
 * a monthly limit of `limit` cents (€200.00 unless said).
 */
async function autoTopUpOnViaApi(request: APIRequestContext, token: string, limit = 20000): Promise<void> {
  const headers = { Authorization: `Bearer ${token}` };
  await saveCardViaApi(request, token, "4242 4242 4242 4242");
  const packs = (await (await request.get("/v1/top-up/products", { headers })).json()) as {
    data: Array<{ id: string; metadata: { token_amount: string } }>;
  };
  const pack = packs.data.find((p) => p.metadata.token_amount === "500")?.id ?? "";
  const values = { threshold: 100, product_id: pack, monthly_limit: { amount: limit, currency: "eur" } };
  const text = await request.post("/v1/billing/auto-top-up/consent-text", { headers, data: values });
  expect(text.status(), await text.text()).toBe(200);
  const { text_version } = (await text.json()) as { text_version: string };
  const on = await request.put("/v1/billing/auto-top-up", {
    headers,
    data: { enabled: true, ...values, consent: { text_version, accepted: true } },
  });
  expect(on.status(), await on.text()).toBe(200);
}

for (const view of VIEWS) {
  test(`an admin reads a customer's auto top-up and turns it off with a reason (${view.name})`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    const customer = await createVerifiedUser(request, "atuo");
    const token = await tokenViaApi(request, customer);
    await buyTierAViaForms(request, token, { name: "Erika Mustermann", country: "DE", vat_id: "" });
    await autoTopUpOnViaApi(request, token);
    const me = (await (
      await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as {
      id: string;
    };
    const admin = await createVerifiedUser(request, "atua");
    await openSignedIn(page, await staffViaCli(request, admin, "admin"), `/admin/orgs/${me.id}`);

    const panel = page.locator('[data-section="org-auto-top-up"]');
    await expect(panel.locator('[data-auto-top-up-badge="active"]')).toHaveText(
      T.statusLabels.active,
      LOADED,
    );
    await expect(panel.locator('[data-saved-card="4242"]')).toBeVisible();
    await expect(panel.locator("[data-auto-top-up-charges]")).toContainText("€0.00 of €200.00 this month");
    // The pack by its name, not its product id.
    await expect(panel.getByText("500 credit pack", { exact: true })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    await panel.getByRole("button", { name: T.admin.turnOff }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: ADMIN_PAGE_TEXT.actions.confirm }).click();
    // A reason is required.
    await expect(dialog.locator("[data-action-error]")).toBeVisible();
    await dialog.getByLabel(ADMIN_PAGE_TEXT.actions.reason).fill("Customer asked by phone, ticket 4711");
    await dialog.getByRole("button", { name: ADMIN_PAGE_TEXT.actions.confirm }).click();
    await expect(page.getByText(T.admin.done)).toBeVisible();
    await expect(panel.locator('[data-auto-top-up-badge="off"]')).toHaveText(T.statusLabels.off);
    await expect(panel.getByRole("button", { name: T.admin.turnOff })).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: test.info().outputPath(`console-auto-top-up-${view.name}.png`),
      fullPage: true,
    });
  });
}

test("a new card pauses auto top-up until Save shows the text for it and it is agreed to", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "atur");
  const token = await tokenViaApi(request, user);
  await buyTierAViaForms(request, token, { name: "Erika Mustermann", country: "DE", vat_id: "" });
  await autoTopUpOnViaApi(request, token);
  // Another card saved: the consent covered the one ending 4242.
  await saveCardViaApi(request, token, "4000 0000 0000 0341");

  await openSignedIn(page, token, "/profile/billing");
  const section = page.locator("[data-auto-top-up]");
  const paused = section.locator('[data-auto-top-up-status="paused"]');
  await expect(paused).toContainText(T.statusLabels.paused, LOADED);
  // On Billing, what to press here; the API's sentence ("under Billing") is the mail's and the console's.
  await expect(paused).toContainText(T.pausedHere.card_replaced ?? "no sentence");
  await expect(paused).not.toContainText(PAUSE_REASONS.card_replaced.sentence);
  // Asking again cannot end it (only consent can): no Resume, and Save asks for the new text.
  await expect(section.getByRole("button", { name: T.resume })).toHaveCount(0);
  await section.getByRole("button", { name: F.save, exact: true }).click();
  const consent = section.locator("[data-auto-top-up-consent]");
  await expect(consent.locator("[data-consent-text]")).toContainText("We will charge your card ending 0341");
  await consent.getByLabel(T.consent.agree).check();
  expect(await axeViolations(page)).toEqual([]);
  await consent.getByRole("button", { name: T.consent.confirmChange }).click();
  await expect(section.locator('[data-auto-top-up-status="active"]')).toContainText(T.statusLabels.active);
  await expect(section.locator('[data-saved-card="0341"]')).toBeVisible();
});

test("ten packs in a Berlin day: Billing says auto top-up resumes at midnight, and offers no Resume", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "atud");
  const token = await tokenViaApi(request, user);
  const headers = { Authorization: `Bearer ${token}` };
  await buyTierAViaForms(request, token, { name: "Erika Mustermann", country: "DE", vat_id: "" });
  // Room for eleven packs of €59.50 this month: the day's limit, not the month's, is met.
  await autoTopUpOnViaApi(request, token, 100_000);
  const key = await request.post("/v1/api-keys", { headers, data: { name: "Render farm" } });
  expect(key.status(), await key.text()).toBe(201);
  const { id } = (await key.json()) as { id: string };
  const service = await makeServiceKey();
  const balance = async () =>
    ((await (await request.get("/v1/users/me", { headers })).json()) as { credit_balance: number })
      .credit_balance;
  const autoTopUp = async () =>
    (await (await request.get("/v1/billing/auto-top-up", { headers })).json()) as AutoTopUp;
  // The program spends below the threshold of 100 credits, and each time a pack of 500 is bought;
  // the eleventh time that day none is.
  for (let n = 1; n <= DAILY_ATTEMPT_LIMIT + 1; n += 1) {
    const quantity = Math.ceil(((await balance()) - 99) / 5);
    const spent = await request.post("/v1/credits/consume", {
      headers: { Authorization: `Bearer ${service}` },
      data: {
        api_key_id: id,
        feature: "comic",
        people: "one",
        quantity,
        idempotency_key: `atud-${n}-${crypto.randomUUID()}`,
      },
    });
    expect(spent.status(), await spent.text()).toBe(200);
    if (n <= DAILY_ATTEMPT_LIMIT)
      await expect.poll(balance, { message: `pack ${n} bought`, timeout: 60_000 }).toBeGreaterThan(100);
  }
  await expect.poll(async () => (await autoTopUp()).paused_reason, { timeout: 60_000 }).toBe("daily_limit");
  expect((await autoTopUp()).paused_until).toBe(nextMidnightBerlin(new Date()).toISOString());

  await openSignedIn(page, token, "/profile/billing");
  const section = page.locator("[data-auto-top-up]");
  const paused = section.locator('[data-auto-top-up-status="paused"]');
  await expect(paused).toContainText(T.statusLabels.paused, LOADED);
  await expect(paused).toContainText(PAUSE_REASONS.daily_limit.sentence);
  // The day's limit counts top-ups made, paid or not: the words do not say packs were bought.
  await expect(paused).toContainText(`today's limit of ${DAILY_ATTEMPT_LIMIT} top-ups`);
  await expect(paused).not.toContainText("bought");
  await expect(paused).toContainText(/Resumes on .+ \(your local time\)\./);
  // No Resume: none could let a charge through before midnight.
  await expect(section.getByRole("button", { name: T.resume })).toHaveCount(0);
  // The eleventh, held back, is in the billing history: not charged, so with no amounts (the
  // pack's price would read as money taken), on a phone's card and a desktop's row alike.
  const notCharged = page
    .locator('[data-invoice-row][data-status="not_charged"], [data-invoice-card][data-status="not_charged"]')
    .filter({ visible: true });
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    await expect(paused).toBeVisible();
    await expect(notCharged).toHaveCount(1);
    await expect(notCharged).toContainText(BILLING_TEXT.statusLabels.not_charged);
    await expect(notCharged.locator("[data-status-note]")).toHaveText(BILLING_TEXT.nothingChargedNote);
    await expect(notCharged).not.toContainText("€");
    await expect(notCharged).toContainText("—");
    expect(await axeViolations(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-daily-limit-${view.name}.png`),
      fullPage: true,
    });
  }
});

test("a pack's dispute lost after its credits were spent: the history says the bank took it back, and auto top-up cannot be turned on", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "atuh");
  const token = await tokenViaApi(request, user);
  const headers = { Authorization: `Bearer ${token}` };
  const buyer = { name: "Erika Mustermann", country: "DE", vat_id: "" };
  const balance = async () =>
    ((await (await request.get("/v1/users/me", { headers })).json()) as { credit_balance: number })
      .credit_balance;
  await buyTierAViaForms(request, token, buyer);
  await expect.poll(balance, { timeout: 20_000 }).toBeGreaterThan(1000);
  await buyTopUpViaForms(request, token, buyer, "500");
  await expect.poll(balance, { timeout: 20_000 }).toBeGreaterThan(1500);
  // Auto top-up is on when the hold comes, which turns it off with its reason.
  await autoTopUpOnViaApi(request, token);
  const invoices = async () =>
    ((await (await request.get("/v1/billing/invoices", { headers })).json()) as { data: InvoiceSummary[] })
      .data;
  const packRow = async () => (await invoices()).find((r) => r.description.includes("500 credit pack"));
  await expect.poll(async () => (await packRow())?.number ?? null, { timeout: 20_000 }).not.toBeNull();
  // The program spends past the plan's 1,050 credits into the pack's (5 credits a comic): a lost
  // dispute then puts the organisation on hold (ACCOUNT-SECURITY.md).
  const key = await request.post("/v1/api-keys", { headers, data: { name: "Render farm" } });
  expect(key.status(), await key.text()).toBe(201);
  const spent = await request.post("/v1/credits/consume", {
    headers: { Authorization: `Bearer ${await makeServiceKey()}` },
    data: {
      api_key_id: ((await key.json()) as { id: string }).id,
      feature: "comic",
      people: "one",
      quantity: 220,
      idempotency_key: crypto.randomUUID(),
    },
  });
  expect(spent.status(), await spent.text()).toBe(200);
  const opened = await request.post("/_dev/billing/disputes", {
    data: { invoice_number: (await packRow())?.number },
  });
  expect(opened.status(), await opened.text()).toBe(201);
  const { dispute_id } = (await opened.json()) as { dispute_id: string };
  const lost = await request.post(`/_dev/billing/disputes/${dispute_id}/close`, { data: { status: "lost" } });
  expect(lost.status(), await lost.text()).toBe(200);
  await expect.poll(async () => (await packRow())?.status, { timeout: 20_000 }).toBe("dispute_lost");

  await openSignedIn(page, token, "/profile/billing");
  const section = page.locator("[data-auto-top-up]");
  const onOff = section.getByRole("switch", { name: F.enabled });
  await expect(onOff).toBeVisible(LOADED);
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.emulateMedia({ colorScheme: view.colorScheme });
    // Not "Refunded" (a refund is ours): the bank took the payment back, and the row says so.
    const pack = page
      .locator("[data-invoice-row], [data-invoice-card]")
      .filter({ visible: true })
      .filter({ hasText: "500 credit pack" });
    await expect(pack).toHaveAttribute("data-status", "dispute_lost");
    await expect(pack).toContainText(BILLING_TEXT.statusLabels.dispute_lost);
    await expect(pack).not.toContainText(BILLING_TEXT.statusLabels.refunded);
    await expect(pack.locator("[data-status-note]")).toHaveText(BILLING_TEXT.disputeLostNote);
    // During the hold the section says so once, as its status, not again as the reason it is off.
    const status = section.locator('[data-auto-top-up-status="off"]');
    await expect(status).toContainText(T.statusLabels.off);
    await expect(status.locator("[data-auto-top-up-held]")).toHaveText(T.heldNote);
    await expect(section.getByText(T.heldNote)).toHaveCount(1);
    await expect(section).not.toContainText(OFF_REASONS.dispute_hold.sentence);
    // Nothing in the form looks editable: the switch, every field and Save are disabled, the
    // switch described by the note saying why.
    await expect(onOff).toBeDisabled();
    await expect(onOff).not.toBeChecked();
    await expect(onOff).toHaveAccessibleDescription(T.heldNote);
    for (const label of [F.threshold, F.pack, F.limit]) {
      const field = section.getByLabel(label, { exact: true });
      await expect(field).toBeDisabled();
      await expect(field).toHaveAttribute("aria-describedby", /(^| )auto-top-up-held$/);
    }
    await expect(section.getByRole("button", { name: F.save, exact: true })).toBeDisabled();
    expect(await axeViolations(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-dispute-hold-${view.name}.png`),
      fullPage: true,
    });
  }
  // Its invoice says the same: taken back by the bank, not refunded.
  await page.goto(`/profile/billing/invoice?id=${(await packRow())?.id}`);
  const returned = page.locator("[data-invoice-returned]");
  await expect(returned).toHaveText("€59.50 taken back by the buyer's bank after a dispute", LOADED);
});
