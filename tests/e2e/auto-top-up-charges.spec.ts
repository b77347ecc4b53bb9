// Auto top-up's charges in the browser (AUTO-TOP-UP.md, "The charge" and "When a charge fails"): an
// owner with a paid plan saves a test card on the local checkout's card page, turns auto top-up on,
// and their program spends below the threshold. A card that pays buys the pack (credits, attempt,
// invoice, receipt); a card that always asks for authentication pauses until the customer confirms
// the payment on the mailed page; a card without funds pauses with its sentence and a mail. On a
// phone in the dark and a desktop in the light, swept with axe.
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { AUTO_TOP_UP_TEXT } from "../../contract/auto-top-up.ts";
import { PAUSE_REASONS } from "../../server/domain/auto-top-up.ts";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../src/lib/auto-top-up-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { createVerifiedUser, openSignedIn, type TestUser, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { buyTierAViaForms } from "../fixtures/checkout.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect as baseExpect, test } from "../fixtures/test.ts";

// Save a card, turn on, spend, wait for the background charge, maybe pay on a page: several page
// loads and a webhook or two on a busy machine.
test.describe.configure({ timeout: 180_000 });
// Resume refused for new terms (the declined card's journey) is a 422 the page answers with them.
test.use({
  allowedConsoleErrors: [
    /status of 422 \(Unprocessable Entity\) \(http:\/\/[^)]*\/v1\/billing\/auto-top-up\)$/,
  ],
});

const T = AUTO_TOP_UP_PAGE_TEXT;
const F = T.form;
/** The section is a chunk of its own that loads after the billing details (see auto-top-up.spec.ts). */
const LOADED = { timeout: 30_000 };
/** The charge runs in the background after the consume answer; its mails and events follow it. */
const CHARGED = { timeout: 60_000 };
const expect = baseExpect.configure({ timeout: 15_000 });

const VIEWS = [
  { name: "phone-dark", width: 390, height: 844, colorScheme: "dark" },
  { name: "desktop-light", width: 1280, height: 900, colorScheme: "light" },
] as const;
type View = (typeof VIEWS)[number];

const THRESHOLD = 100;
const PACK_CREDITS = 500;
/** What one comic costs (contract/credit-costs.ts): the program's spend is a batch of them. */
const COMIC_CREDITS = 5;
const RECEIPT_SUBJECT = /Auto top-up: 500 credit pack/;

interface Mail {
  to: string;
  subject: string;
  links: string[];
}

/** The newest mail to `email` whose subject matches, waiting as long as a background charge takes. */
async function mailTo(request: APIRequestContext, email: string, subject: RegExp): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        const { data } = (await (await request.get("/_dev/mail.json")).json()) as { data: Mail[] };
        found = data.find((m) => m.to.includes(email) && subject.test(m.subject));
        return Boolean(found);
      },
      { message: `a mail to ${email} with a subject like ${subject}`, ...CHARGED },
    )
    .toBe(true);
  return found as Mail;
}

async function balanceOf(request: APIRequestContext, token: string): Promise<number> {
  const me = await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${token}` } });
  expect(me.status(), await me.text()).toBe(200);
  return ((await me.json()) as { credit_balance: number }).credit_balance;
}

/**
 * The customer's program renders comics with its API key until the balance is below the threshold:
 * one batch, charged by the generation service (its service key) as in production. Answers the
 * balance after it.
 */
async function spendBelowThreshold(request: APIRequestContext, token: string): Promise<number> {
  const before = await balanceOf(request, token);
  const key = await request.post("/v1/api-keys", {
    headers: { Authorization: `Bearer ${token}` },
    data: { name: "Render farm" },
  });
  expect(key.status(), await key.text()).toBe(201);
  const { id } = (await key.json()) as { id: string };
  const quantity = Math.ceil((before - (THRESHOLD - 1)) / COMIC_CREDITS);
  const charge = await request.post("/v1/credits/consume", {
    headers: { Authorization: `Bearer ${await makeServiceKey()}` },
    data: {
      api_key_id: id,
      feature: "comic",
      people: "one",
      quantity,
      idempotency_key: `atu-batch-${crypto.randomUUID()}`,
    },
  });
  expect(charge.status(), await charge.text()).toBe(200);
  const after = before - quantity * COMIC_CREDITS;
  expect(after).toBeLessThan(THRESHOLD);
  expect(after).toBeGreaterThan(0);
  return after;
}

const sectionOf = (page: Page) => page.locator("[data-auto-top-up]");
/** The billing history's rows of the pack as shown at this width: cards on a phone, table rows from `sm` up. */
const historyRowsOf = (page: Page) =>
  page
    .locator("[data-invoice-row], [data-invoice-card]")
    .filter({ visible: true })
    .filter({ hasText: "Auto top-up: 500 credit pack" });
/** The attempts as shown at this width: cards on a phone, table rows from `sm` up. */
const attemptsOf = (page: Page) =>
  sectionOf(page).locator("[data-auto-top-up-attempts] [data-attempt]").filter({ visible: true });
/**
 * The balance where the customer reads it: the top bar's badge on a desktop, the mobile menu's on
 * a phone (opened to read it, and closed again).
 */
async function expectCredits(page: Page, view: View, n: number): Promise<void> {
  if (view.width >= 768) {
    await expect(page.locator("[data-credit-balance]").filter({ visible: true }).first()).toHaveText(
      credits(n),
    );
    return;
  }
  const menu = page.getByRole("navigation", { name: "Mobile" });
  await page.getByText("Menu", { exact: true }).click();
  await expect(menu.locator("[data-credit-balance]")).toHaveText(credits(n));
  await page.getByText("Menu", { exact: true }).click();
  await expect(menu).toBeHidden();
}
/** A balance as the badge writes it, and not as part of a longer number ("95" is in "595"). */
const credits = (n: number) => new RegExp(`(^|[^\\d,.])${n.toLocaleString("en-US")}(?![\\d,.])`);

/** Reloads Billing until `check` passes: the section reads the API once per load. */
async function reloadUntil(page: Page, check: () => Promise<void>): Promise<void> {
  await expect(async () => {
    await page.reload();
    await expect(sectionOf(page).locator("[data-auto-top-up-status]")).toBeVisible(LOADED);
    await check();
  }).toPass({ timeout: 90_000, intervals: [1_000, 2_000, 3_000] });
}

/** A billing history row's own page (/profile/billing/invoice), once its document has loaded. */
async function openInvoicePage(page: Page, rowId: string): Promise<Locator> {
  expect(rowId, "the row names its id").not.toBe("");
  await page.goto(`/profile/billing/invoice?id=${rowId}`);
  return openedInvoicePage(page, rowId);
}

/** The row's own page, now open, once its document has loaded. */
async function openedInvoicePage(page: Page, rowId: string): Promise<Locator> {
  await expect(page).toHaveURL(new RegExp(`/profile/billing/invoice\\?id=${rowId}$`));
  const document = page.locator(`[data-invoice="${rowId}"]`);
  await expect(document).toBeVisible(LOADED);
  return document;
}

/**
 * The page as it is, and the section alone at full size to read it. For the latter the sticky top
 * bar is kept in its place (through the CSSOM, which the CSP allows; an injected style it blocks):
 * it would cover the section's top in a picture taken scrolled.
 */
async function shot(page: Page, name: string, view: View): Promise<void> {
  // From the top, or the sticky bar is drawn where the page was scrolled to.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: test.info().outputPath(`${name}-${view.name}.png`), fullPage: true });
  const bar = page.locator("header.sticky");
  await bar.evaluate((el: HTMLElement) => {
    el.style.position = "static";
  });
  await sectionOf(page).screenshot({ path: test.info().outputPath(`${name}-section-${view.name}.png`) });
  await bar.evaluate((el: HTMLElement) => {
    el.style.position = "";
  });
}

/**
 * A new owner of Tier A on Billing who saves `card` on the card page (answering the simulated
 * authentication when it asks), sets the threshold and turns auto top-up on, agreeing to the text.
 */
async function ownerWithAutoTopUp(
  page: Page,
  request: APIRequestContext,
  view: View,
  prefix: string,
  card: string,
): Promise<{ user: TestUser; token: string; section: Locator }> {
  await page.setViewportSize({ width: view.width, height: view.height });
  await page.emulateMedia({ colorScheme: view.colorScheme });
  const user = await createVerifiedUser(request, prefix);
  const token = await tokenViaApi(request, user);
  await buyTierAViaForms(request, token, { name: "Erika Mustermann", country: "DE", vat_id: "" });

  await openSignedIn(page, token, "/profile/billing");
  const section = sectionOf(page);
  await expect(section.locator("[data-auto-top-up-status]")).toContainText(T.statusLabels.off, LOADED);
  await section.getByRole("button", { name: T.card.add }).click();
  await expect(page).toHaveURL(/\/_checkout\/setup\//);
  await page.getByLabel("Card number").fill(card);
  await page.getByRole("button", { name: "Save" }).click();
  const last4 = card.replaceAll(" ", "").slice(-4);
  if (card !== "4242 4242 4242 4242") {
    // The simulated 3-D Secure step of a card that asks for authentication when saved.
    await expect(page.getByRole("heading", { name: "Authenticate your card" })).toBeVisible();
    await expect(page.getByText(`the card ending ${last4}`)).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Complete authentication" }).click();
  }
  await expect(page).toHaveURL(/\/profile\/billing/);
  await expect(section.locator(`[data-saved-card="${last4}"]`)).toBeVisible({ timeout: 30_000 });

  await section.getByLabel(F.threshold).fill(String(THRESHOLD));
  await section.getByRole("switch", { name: F.enabled }).check();
  await section.getByRole("button", { name: F.save, exact: true }).click();
  const consent = section.locator("[data-auto-top-up-consent]");
  await expect(consent.locator("[data-consent-text]")).toContainText(
    `We will charge your card ending ${last4}`,
  );
  await expect(consent.locator("[data-consent-text]")).toContainText(
    `whenever this organisation's balance falls below ${THRESHOLD} credits`,
  );
  await consent.getByLabel(T.consent.agree).check();
  await consent.getByRole("button", { name: T.consent.confirmOn }).click();
  await expect(section.locator('[data-auto-top-up-status="active"]')).toContainText(T.statusLabels.active);
  await expect(section.locator("[data-auto-top-up-attempts]")).toContainText(T.attempts.none);
  return { user, token, section };
}

for (const view of VIEWS) {
  test(`a spend below the threshold buys a pack with the saved card (${view.name})`, async ({
    page,
    request,
  }) => {
    const { user, token, section } = await test.step("save the card and turn on", () =>
      ownerWithAutoTopUp(page, request, view, "atup", "4242 4242 4242 4242"));
    const low = await test.step("spend below the threshold", () => spendBelowThreshold(request, token));

    // The charge runs after the answer: Billing shows its outcome on a later load.
    const attempt = attemptsOf(page).first();
    await reloadUntil(page, async () => {
      await expect(attemptsOf(page)).toHaveCount(1);
      await expect(attempt).toContainText(T.attempts.statusLabels.paid);
    });
    await expectCredits(page, view, low + PACK_CREDITS);
    expect(await balanceOf(request, token)).toBe(low + PACK_CREDITS);
    await expect(section.locator('[data-auto-top-up-status="active"]')).toBeVisible();
    await expect(attempt).toContainText("500");
    await expect(attempt).toContainText("€59.50");
    const number = (await attempt.textContent())?.match(/INV-\d{4}-\d{6}/)?.[0];
    expect(number, "the attempt names its invoice").toBeDefined();
    await expect(section.locator("[data-auto-top-up-charges]")).toContainText("€59.50 of €200.00 this month");

    // The same invoice in the billing history, with a link to it.
    const history = historyRowsOf(page);
    await expect(history).toHaveCount(1);
    await expect(history).toContainText("€59.50");
    const historyLink = history.getByRole("link", { name: new RegExp(number ?? "no number") });
    await expect(historyLink).toBeVisible();
    // The attempt's number links to the same invoice.
    const attemptLink = attempt.getByRole("link", { name: number ?? "no number" });
    await expect(attemptLink).toHaveAttribute("href", (await historyLink.getAttribute("href")) ?? "");

    const receipt = await mailTo(request, user.email, RECEIPT_SUBJECT);
    expect(receipt.subject).toContain("Auto top-up: 500 credit pack");
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, "auto-top-up-paid", view);
  });

  test(`a payment the bank wants confirmed pauses until it is paid on its page (${view.name})`, async ({
    page,
    request,
  }) => {
    // Two more page loads than the others: the row's own page, waiting and paid.
    test.setTimeout(300_000);
    const { user, token, section } = await test.step("save the card and turn on", () =>
      ownerWithAutoTopUp(page, request, view, "atua", "4000 0027 6000 3184"));
    const low = await test.step("spend below the threshold", () => spendBelowThreshold(request, token));

    const paused = section.locator('[data-auto-top-up-status="paused"]');
    await test.step("see it paused", () =>
      reloadUntil(page, async () => {
        await expect(paused).toContainText(T.statusLabels.paused);
      }));
    await expect(paused).toContainText(PAUSE_REASONS.authentication_required.sentence);
    const complete = section.getByRole("link", { name: T.completePayment });
    await expect(complete).toBeVisible();
    await expect(attemptsOf(page).first()).toContainText(T.attempts.statusLabels.authentication_required);
    // Nothing charged yet, but the payment waiting for the bank keeps its room under the limit:
    // the meter says so, beside the pause.
    const meter = section.locator("[data-auto-top-up-charges]");
    await expect(meter).toContainText("€0.00 charged + €59.50 reserved of €200.00 this month");
    await expect(meter.locator("[data-auto-top-up-reserved]")).toHaveText(T.charges.reservedNote);
    await expect(meter.getByRole("progressbar")).toHaveAttribute("value", "5950");
    // The billing history's row says the same, with the same way to complete it, not "Failed".
    const historyRow = historyRowsOf(page);
    await expect(historyRow).toHaveCount(1);
    await expect(historyRow).toContainText(BILLING_TEXT.statusLabels.authentication_required);
    await expect(historyRow).not.toContainText(BILLING_TEXT.statusLabels.failed);
    const completeRow = historyRow.getByRole("link", { name: BILLING_TEXT.completePayment });
    await expect(completeRow).toHaveAttribute("href", (await complete.getAttribute("href")) ?? "");
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, "auto-top-up-paused-authentication", view);
    const payUrl = (await complete.getAttribute("href")) ?? "";
    const rowId = (await completeRow.getAttribute("data-complete-payment-row")) ?? "";
    // Beside it, the row's own page, as every other row links its own.
    const ownPage = historyRow.getByRole("link", { name: BILLING_TEXT.viewPayment });
    await expect(ownPage).toHaveAttribute("href", `/profile/billing/invoice?id=${rowId}`);

    // The row's own page, reached from the row, offers the same payment page while it waits.
    const invoicePage = await test.step("open the row's page from its link", async () => {
      await ownPage.click();
      return openedInvoicePage(page, rowId);
    });
    await expect(invoicePage).toContainText(BILLING_TEXT.authenticationInvoice);
    // The buyer as the invoice will name them (the billing details on file), not only the country;
    // the line is the pack alone: the notice above says once what the bank waits for.
    const buyer = invoicePage.locator("address").nth(1);
    await expect(buyer).toContainText("Erika Mustermann");
    await expect(buyer).toContainText(user.email);
    const lines = invoicePage.locator("[data-invoice-lines] tbody");
    await expect(lines).toContainText("Auto top-up: 500 credit pack");
    await expect(lines).not.toContainText(PAUSE_REASONS.authentication_required.sentence);
    await expect(invoicePage.getByText(BILLING_TEXT.authenticationInvoice)).toHaveCount(1);
    const completeHere = invoicePage.getByRole("link", { name: BILLING_TEXT.completePayment });
    await expect(completeHere).toHaveAttribute("href", payUrl);
    await expect(invoicePage.getByRole("button", { name: BILLING_TEXT.downloadPdf })).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-invoice-waiting-${view.name}.png`),
      fullPage: true,
    });

    // The mail carries the same page as the section's link.
    const mail = await test.step("read the mail", () =>
      mailTo(request, user.email, /^Confirm the automatic payment of €59\.50/));
    const link = mail.links.find((l) => new URL(l).pathname.startsWith("/_checkout/invoice/"));
    expect(link, `a payment link in "${mail.subject}"`).toBeDefined();
    const pathname = new URL(link ?? "").pathname;
    expect(new URL(payUrl, page.url()).pathname).toBe(pathname);
    await page.goto(pathname);
    await expect(page.getByRole("heading", { name: "Confirm your payment" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Payment summary" })).toContainText("€59.50");
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Confirm payment" }).click();
    await expect(page.locator("#payment-state")).toHaveText("Paid. You can close this page.");
    await page.getByRole("link", { name: "Back to Billing" }).click();
    await expect(page).toHaveURL(/\/profile\/billing/);

    await test.step("see it active again", () =>
      reloadUntil(page, async () => {
        await expect(section.locator('[data-auto-top-up-status="active"]')).toContainText(
          T.statusLabels.active,
        );
        await expect(attemptsOf(page).first()).toContainText(T.attempts.statusLabels.paid);
      }));
    await expect(attemptsOf(page)).toHaveCount(1);
    await expect(attemptsOf(page).first()).toContainText(/INV-\d{4}-\d{6}/);
    await expect(section.getByRole("link", { name: T.completePayment })).toHaveCount(0);
    // Paid: the history's row is the invoice.
    await expect(historyRow).toContainText(BILLING_TEXT.statusLabels.paid);
    await expect(historyRow.getByRole("link", { name: /INV-\d{4}-\d{6}/ })).toBeVisible();
    await expect(historyRow.getByRole("link", { name: BILLING_TEXT.completePayment })).toHaveCount(0);
    await expect(historyRow.getByRole("link", { name: BILLING_TEXT.viewPayment })).toHaveCount(0);
    // Paid: what was reserved is charged now.
    await expect(meter).toContainText("€59.50 of €200.00 this month");
    await expect(meter.locator("[data-auto-top-up-reserved]")).toHaveCount(0);
    await expectCredits(page, view, low + PACK_CREDITS);
    expect(await balanceOf(request, token)).toBe(low + PACK_CREDITS);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, "auto-top-up-active-again", view);
    // Paid: the same page is the numbered invoice, with nothing left to pay.
    const paidPage = await test.step("open the paid row's page", () => openInvoicePage(page, rowId));
    await expect(paidPage.locator("[data-invoice-number]")).toHaveText(/INV-\d{4}-\d{6}/);
    await expect(paidPage.getByRole("button", { name: BILLING_TEXT.downloadPdf })).toBeVisible();
    await expect(paidPage.getByRole("link", { name: BILLING_TEXT.completePayment })).toHaveCount(0);
    await expect(paidPage).not.toContainText(BILLING_TEXT.authenticationInvoice);
    await page.screenshot({
      path: test.info().outputPath(`auto-top-up-invoice-paid-${view.name}.png`),
      fullPage: true,
    });
  });

  test(`a card without funds pauses auto top-up with its reason and a mail (${view.name})`, async ({
    page,
    request,
  }) => {
    const { user, token, section } = await test.step("save the card and turn on", () =>
      ownerWithAutoTopUp(page, request, view, "atuf", "4000 0082 6000 3178"));
    const low = await test.step("spend below the threshold", () => spendBelowThreshold(request, token));

    const paused = section.locator('[data-auto-top-up-status="paused"]');
    await reloadUntil(page, async () => {
      await expect(paused).toContainText(T.statusLabels.paused);
    });
    await expect(paused).toContainText("Your card has insufficient funds for this payment.");
    await expect(paused).toContainText(PAUSE_REASONS.declined.sentence);
    const attempt = attemptsOf(page).first();
    await expect(attempt).toContainText(T.attempts.statusLabels.failed);
    await expect(attempt).toContainText("Your card has insufficient funds");
    await expect(section.getByRole("link", { name: T.completePayment })).toHaveCount(0);
    await expect(section.getByRole("button", { name: T.resume })).toBeVisible();
    // Nothing was charged, and nothing counts against the limit.
    await expect(section.locator("[data-auto-top-up-charges]")).toContainText("€0.00 of €200.00 this month");
    await expectCredits(page, view, low);
    expect(await balanceOf(request, token)).toBe(low);
    // The billing history lists the payment that failed, with why, and no invoice to open.
    const history = historyRowsOf(page);
    await expect(history).toHaveCount(1);
    await expect(history).toContainText(BILLING_TEXT.statusLabels.failed);
    await expect(history).toContainText("Your card has insufficient funds for this payment.");
    // A decline charged nothing: no amounts (the pack's price would read as money taken), and it says so.
    await expect(history).not.toContainText("€");
    await expect(history).toContainText("—");
    await expect(history.locator("[data-status-note]")).toHaveText(BILLING_TEXT.nothingChargedNote);
    await expect(history.getByRole("link")).toHaveCount(0);
    await expect(history).toContainText(
      view.width < 640 ? `${BILLING_TEXT.invoice}: ${BILLING_TEXT.noInvoice}` : BILLING_TEXT.noInvoice,
    );

    await mailTo(request, user.email, /^Auto top-up is paused/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, "auto-top-up-paused-declined", view);

    await test.step("resume after the VAT changed: the new terms at once, then active", async () => {
      const details = await request.put("/v1/billing/details", {
        headers: { Authorization: `Bearer ${token}` },
        data: {
          name: "Erika Mustermann",
          email: user.email,
          address: { line1: "1 rue de Rivoli", postal_code: "75001", city: "Paris", country: "FR" },
        },
      });
      expect(details.status(), await details.text()).toBe(200);
      await page.reload();
      // A decline stays the reason (the new VAT is for the terms to say), so Resume is offered.
      await expect(paused).toContainText(PAUSE_REASONS.declined.sentence);
      await section.getByRole("button", { name: T.resume }).click();
      await expect(page.getByText(T.resumeNeedsConsent)).toBeVisible();
      const consent = section.locator("[data-auto-top-up-consent]");
      await expect(consent.locator("[data-consent-text]")).toContainText("€60.00");
      await expect(consent.locator('[data-field-error="consent"]')).toHaveText(
        AUTO_TOP_UP_TEXT.consentChanged,
      );
      await expect(consent.getByRole("heading", { name: T.consent.title })).toBeFocused();
      await consent.getByLabel(T.consent.agree).check();
      const saved = page.waitForResponse(
        (r) => r.url().endsWith("/v1/billing/auto-top-up") && r.request().method() === "PUT",
      );
      await consent.getByRole("button", { name: T.consent.confirmChange }).click();
      expect((await saved).status()).toBe(200);
      await expect(page.getByText(T.resumed)).toBeVisible();
    });
  });
}
