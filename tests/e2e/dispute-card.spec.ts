// A disputed payment, end to end on the local checkout: Stripe's dispute card 4000 0000 0000 0259
// buys a credit pack, the stand-in's signed charge.dispute.created reaches the webhook, and
// /profile/billing shows the payment disputed with its credits waiting. Then the dispute hold: a
// pack whose credits were partly spent is disputed and the dispute lost (the development routes, as
// the card network would decide), and Billing and the top bar show the hold.
import type { APIRequestContext, Page } from "@playwright/test";
import { AUTO_TOP_UP_PAGE_TEXT } from "../../src/lib/auto-top-up-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { DISPUTE_HOLD_TEXT } from "../../src/lib/dispute-hold-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { buyTierAViaForms, buyTopUpViaForms, giveBillingDetails } from "../fixtures/checkout.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 180_000 });

const BUYER = { name: "Erika Mustermann", country: "DE", vat_id: "" };
const VIEWS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function balanceOf(request: APIRequestContext, token: string): Promise<number> {
  const me = await request.get("/v1/users/me", { headers: bearer(token) });
  expect(me.status(), await me.text()).toBe(200);
  return ((await me.json()) as { credit_balance: number }).credit_balance;
}

/** The page's uncaught errors, collected from now on. */
function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** A new customer on Tier A, its credits arrived: their access token. */
async function payingCustomer(request: APIRequestContext, prefix: string): Promise<string> {
  const token = await tokenViaApi(request, await createVerifiedUser(request, prefix));
  await buyTierAViaForms(request, token, BUYER);
  await expect.poll(() => balanceOf(request, token), { timeout: 20_000 }).toBeGreaterThan(1000);
  return token;
}

/** The billing history's rows once the newest payment's webhook events have arrived. */
async function rowsOnceSettled(page: Page, count: number) {
  const rows = page.locator("[data-invoice-row]");
  await expect(async () => {
    await page.goto("/profile/billing");
    await expect(rows).toHaveCount(count, { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  return rows;
}

async function shots(page: Page, name: string): Promise<void> {
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: test.info().outputPath(`${name}-${view.name}.png`), fullPage: true });
  }
}

test("a pack bought with the dispute card: the payment is disputed and its credits wait until it is won", async ({
  page,
  request,
}) => {
  const errors = pageErrors(page);
  const token = await payingCustomer(request, "dispcard");
  const before = await balanceOf(request, token);

  await openSignedIn(page, token, "/profile");
  await page.getByRole("radio", { name: /500 credit pack/ }).check();
  await page.getByRole("button", { name: PROFILE_TEXT.buy, exact: true }).click();
  await giveBillingDetails(page);
  // The card step names the dispute card for a pack.
  await expect(page.getByText("4000 0000 0000 0259 pays, then the payment is disputed")).toBeVisible();
  await page.getByLabel("Card number").fill("4000 0000 0000 0259");
  await page.getByRole("button", { name: "Pay" }).click();
  await expect(page).toHaveURL(/\/payment\/success$/);

  // The dispute comes right behind the payment: the pack's row is disputed, its credits frozen.
  const rows = await rowsOnceSettled(page, 2);
  const pack = rows.filter({ hasText: "500 credit pack" });
  await expect(async () => {
    await page.reload();
    await expect(pack).toHaveAttribute("data-status", "disputed", { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await expect(pack).toContainText(BILLING_TEXT.statusLabels.disputed);
  // Beside the badge, what "Disputed" means, on the desktop's row and on the phone's card.
  await expect(pack.locator("[data-disputed-note]")).toHaveText(BILLING_TEXT.disputedNote);
  await expect(page.locator("[data-disputed-note]:visible")).toHaveCount(1);
  await page.setViewportSize({ width: 390, height: 844 });
  const packCard = page.locator("[data-invoice-card]").filter({ hasText: "500 credit pack" });
  await expect(packCard.locator("[data-disputed-note]")).toBeVisible();
  await expect(packCard.locator("[data-disputed-note]")).toHaveText(BILLING_TEXT.disputedNote);
  await expect(page.locator("[data-disputed-note]:visible")).toHaveCount(1);
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await balanceOf(request, token)).toBe(before);
  await expect(page.locator("[data-credit-balance]").first()).toContainText(before.toLocaleString("en-GB"));
  // A disputed payment is not a hold: nothing was spent of it.
  await expect(page.locator("[data-dispute-hold]")).toHaveCount(0);
  // Nor does auto top-up say it is held.
  await expect(page.locator("[data-auto-top-up] #auto-top-up")).toBeVisible();
  await expect(page.locator("[data-auto-top-up-held]")).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  await shots(page, "disputed-pack");

  // The card network decides for the seller: the credits come back and the row is paid again.
  const invoiceNumber = (await pack.textContent())?.match(/INV-\d{4}-\d{6}/)?.[0] ?? "";
  const won = await request.post(`/_dev/billing/disputes/${invoiceNumber}/close`, {
    data: { status: "won" },
  });
  expect(won.status(), await won.text()).toBe(200);
  await expect.poll(() => balanceOf(request, token), { timeout: 20_000 }).toBe(before + 500);
  await page.reload();
  await expect(pack).toHaveAttribute("data-status", "paid");
  await expect(page.locator("[data-disputed-note]")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("a pack disputed after some of its credits were spent, and lost: Billing and the top bar show the hold", async ({
  page,
  request,
}) => {
  const errors = pageErrors(page);
  const token = await payingCustomer(request, "disphold");
  await buyTopUpViaForms(request, token, BUYER, "500");
  await expect.poll(() => balanceOf(request, token), { timeout: 20_000 }).toBeGreaterThan(1500);

  // The customer's program spends past the plan's 1,000 credits into the pack's (5 credits a comic).
  const key = await request.post("/v1/api-keys", { headers: bearer(token), data: { name: "Render farm" } });
  expect(key.status(), await key.text()).toBe(201);
  const { id } = (await key.json()) as { id: string };
  const spend = await request.post("/v1/credits/consume", {
    headers: bearer(await makeServiceKey()),
    data: {
      api_key_id: id,
      feature: "comic",
      people: "one",
      quantity: 210,
      idempotency_key: crypto.randomUUID(),
    },
  });
  expect(spend.status(), await spend.text()).toBe(200);

  await openSignedIn(page, token, "/profile/billing");
  const rows = await rowsOnceSettled(page, 2);
  const pack = rows.filter({ hasText: "500 credit pack" });
  const invoiceNumber = (await pack.textContent())?.match(/INV-\d{4}-\d{6}/)?.[0] ?? "";
  const opened = await request.post("/_dev/billing/disputes", { data: { invoice_number: invoiceNumber } });
  expect(opened.status(), await opened.text()).toBe(201);
  const { dispute_id } = (await opened.json()) as { dispute_id: string };
  const lost = await request.post(`/_dev/billing/disputes/${dispute_id}/close`, { data: { status: "lost" } });
  expect(lost.status(), await lost.text()).toBe(200);

  const alert = page.locator("[data-dispute-hold]");
  await expect(async () => {
    await page.reload();
    await expect(alert).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await expect(alert).toContainText(DISPUTE_HOLD_TEXT.title);
  // The alert names the disputed invoice and links its page, on Billing and on /profile.
  const named = `${DISPUTE_HOLD_TEXT.invoice.before} ${invoiceNumber} ${DISPUTE_HOLD_TEXT.invoice.after}`;
  await expect(alert.locator("[data-dispute-hold-invoice]")).toHaveText(named);
  const invoiceLink = alert.getByRole("link", { name: invoiceNumber });
  await expect(invoiceLink).toHaveAttribute("href", /^\/profile\/billing\/invoice\?id=/);
  await expect(pack).toHaveAttribute("data-status", "dispute_lost");
  // Auto top-up, turned on, would be refused (409): the section says so, once, while the hold
  // lasts, and no field of its settings looks editable.
  const autoTopUp = page.locator("[data-auto-top-up]");
  await expect(autoTopUp.locator("[data-auto-top-up-held]")).toHaveText(AUTO_TOP_UP_PAGE_TEXT.heldNote);
  await expect(autoTopUp.getByText(AUTO_TOP_UP_PAGE_TEXT.heldNote)).toHaveCount(1);
  const form = autoTopUp.locator("[data-auto-top-up-form]");
  await expect(form.locator("input, select, button")).toHaveCount(5);
  for (const control of await form.locator("input, select, button").all())
    await expect(control).toBeDisabled();
  expect(await axeViolations(page)).toEqual([]);
  await shots(page, "dispute-hold");
  // On a phone the mark is inside the menu; its button carries a dot.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.locator("[data-hold-dot]")).toBeVisible();
  // Beside the balance in the top bar.
  await page.setViewportSize({ width: 1280, height: 900 });
  const mark = page.locator("[data-dispute-hold-mark]:visible");
  await expect(mark).toHaveCount(1);
  await expect(mark).toHaveAccessibleName(DISPUTE_HOLD_TEXT.markLabel);
  await page.goto("/profile");
  await expect(alert.locator("[data-dispute-hold-invoice]")).toHaveText(named);
  // /profile sells packs too: the alert says what a payment during the hold gives, as Billing does.
  await expect(alert).toContainText(DISPUTE_HOLD_TEXT.paying);
  await invoiceLink.click();
  await expect(page).toHaveURL(/\/profile\/billing\/invoice\?id=/);
  await expect(page.getByText(invoiceNumber).first()).toBeVisible();
  expect(errors).toEqual([]);
});
