import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { createVerifiedUser, openSignedIn, readMail, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { payOnCheckout } from "../fixtures/checkout.ts";
import { ownServer } from "../fixtures/own-server.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 180_000 });

const T = BILLING_TEXT;
const server = ownServer("failed-renewal");

test("a declined renewal: the mail, a new card, and the plan goes on", async ({ browser, playwright }) => {
  const api = await playwright.request.newContext({ baseURL: server().baseUrl });
  const context = await browser.newContext({ baseURL: server().baseUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  const user = await createVerifiedUser(api, "dunning");
  await openSignedIn(page, await tokenViaApi(api, user), "/plans");
  await page
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ })
    .click();
  await payOnCheckout(page, "4000 0000 0000 0341");
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
  await readMail(api, user.email, /receipt/);

  // A month later the renewal is declined (npm run billing:advance does the same).
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 32 } });
  expect(advanced.status(), await advanced.text()).toBe(200);
  const mail = await readMail(api, user.email, /failed: update your card/);
  const link = mail.links.find((l) => l.endsWith("/profile/billing"));
  expect(link).toBe(`${server().baseUrl}/profile/billing`);

  // The access token of a month ago has expired: sign in again, then follow the mail's link.
  await openSignedIn(page, await tokenViaApi(api, user), "/profile");
  await expect(page.locator("[data-past-due]")).toBeVisible();
  // Cancelling now would end the plan at once (its payment failed): the dialog says so, not a date.
  await page.getByRole("button", { name: PROFILE_TEXT.cancelSubscription }).click();
  const cancel = page.getByRole("dialog", { name: PROFILE_TEXT.cancelTitle });
  await expect(cancel.locator("[data-cancel-body]")).toHaveText(PROFILE_TEXT.cancelPastDue("Tier A"));
  await cancel.getByRole("button", { name: PROFILE_TEXT.keepSubscription }).click();
  await expect(cancel).toBeHidden();
  await page.goto(link ?? "/profile/billing");
  await expect(page.locator("[data-failed-renewal]")).toBeVisible();
  const rows = page.locator("[data-invoice-row]");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAttribute("data-status", "failed");
  expect(await axeViolations(page)).toEqual([]);

  // The provider's page for a new card: a declined card stays, a good one pays and comes back.
  await page.getByRole("button", { name: T.updatePaymentMethod }).click();
  await expect(page.getByRole("heading", { name: "Update payment method" })).toBeVisible();
  await expect(page.locator("#card-intro")).toContainText("The last payment for Tier A failed");
  expect(await axeViolations(page)).toEqual([]);
  await page.getByLabel("Card number").fill("4000 0000 0000 0002");
  await page.getByRole("button", { name: "Save card" }).click();
  await expect(page.getByText("Your card was declined.")).toBeVisible();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: "Save card" }).click();
  await expect(page).toHaveURL(/\/profile\/billing$/);

  await expect(async () => {
    await page.reload();
    await expect(rows.first()).toHaveAttribute("data-status", "paid", { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  // The next number: of the same year's series, or the first of the next year's.
  await expect(rows.first()).toContainText(/View INV-\d{4}-00000[12]/);
  await expect(rows.nth(1)).toContainText(/View INV-\d{4}-000001/);
  await expect(page.locator("[data-failed-renewal]")).toHaveCount(0);
  await readMail(api, user.email, /receipt: €94\.01 for Tier A monthly subscription, /);

  await page.goto("/profile");
  await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("Tier A");
  await expect(page.locator("[data-past-due]")).toHaveCount(0);
  expect(errors).toEqual([]);
  await context.close();
  await api.dispose();
});
