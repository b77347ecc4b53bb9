// Billing journeys in the browser against the real API and its local hosted checkout: subscribe,
// pay, top up, change and cancel the plan, a declined card, and who may see /plans.
import type { Page } from "@playwright/test";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { PLAN_ACTION_TEXT } from "../../src/lib/plan-action-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { ERROR_TEXT, UI_TEXT } from "../../src/lib/ui-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi, visibleGreeting } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { payOnCheckout } from "../fixtures/checkout.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 150_000 });

const pay = (page: Page, card: string) => payOnCheckout(page, card);

const tokensOf = async (page: Page) =>
  Number((await page.getByLabel(PROFILE_TEXT.tokens).inputValue()).replaceAll(",", ""));

/** Reloads /profile until `check` passes: the provider's webhook may land just after the redirect. */
async function profileUntil(page: Page, check: () => Promise<void>) {
  await expect(async () => {
    await page.goto("/profile");
    await check();
  }).toPass({ timeout: 20_000, intervals: [500, 1000, 2000] });
}

test("a user subscribes to Tier B, tops up 500 credits, schedules Tier C, cancels, keeps Tier B after all and signs out", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "tierb");
  await openSignedIn(page, await tokenViaApi(request, user), "/plans");

  const tierB = page.locator('[data-plan-card][data-tier="B"]');
  await tierB.getByRole("button", { name: /to Tier B/ }).click();
  await pay(page, "4242 4242 4242 4242");
  await expect(page).toHaveURL(/\/payment\/success$/);
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await expect(page.getByRole("link", { name: PAYMENT_TEXT.goToDashboard })).toHaveAttribute("href", "/");

  await profileUntil(page, async () => {
    await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("Tier B", { timeout: 2000 });
  });
  await expect(page.getByLabel(PROFILE_TEXT.planEnds)).toHaveValue(/^\d{4}-\d{2}-\d{2}$/);
  const afterSubscribe = await tokensOf(page);
  expect(afterSubscribe).toBeGreaterThanOrEqual(5000);
  await expect(page.locator("[data-plan-badge]").first()).toHaveText("Tier B");
  await expect(page.getByText(PROFILE_TEXT.topUpTitle)).toBeVisible();
  await expect(page.locator("[data-top-up-balance]")).toHaveText(afterSubscribe.toLocaleString("en-US"));
  expect(await axeViolations(page)).toEqual([]);

  // A user on a paid plan has no business on /plans.
  await page.goto("/plans");
  await expect(page).toHaveURL(/\/$/);

  // Top-up 500.
  await page.goto("/profile");
  await page.getByRole("radio", { name: /500 credit pack/ }).check();
  await page.getByRole("button", { name: PROFILE_TEXT.buy, exact: true }).click();
  await pay(page, "4242 4242 4242 4242");
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
  await profileUntil(page, async () => {
    expect(await tokensOf(page)).toBe(afterSubscribe + 500);
  });

  // Change to Tier C: scheduled for the period end.
  await page.getByRole("button", { name: PROFILE_TEXT.changePlan }).click();
  const change = page.getByRole("dialog", { name: PROFILE_TEXT.changePlanTitle });
  await expect(change).toBeVisible();
  await expect(change.getByRole("radio")).toHaveCount(4);
  await expect(change.getByRole("radio", { name: /Tier B/ })).toHaveCount(0);
  await change.getByRole("radio", { name: /Tier C/ }).check();
  await expect(change).toContainText("up to 4 concurrent requests");
  expect(await axeViolations(page)).toEqual([]);
  await change.getByRole("button", { name: PROFILE_TEXT.updatePlan }).click();
  await expect(page.getByText(PLAN_ACTION_TEXT.planUpdated)).toBeVisible();
  await expect(change).toBeHidden();
  await expect(page.locator("[data-scheduled]")).toContainText("Tier C");
  await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("Tier B");

  // The change can be taken back: the dialog now says it and offers to keep Tier B.
  await page.getByRole("button", { name: PROFILE_TEXT.changePlan }).click();
  await expect(change).toContainText(
    /The new plan starts when your current period ends, on \d{4}-\d{2}-\d{2}\./,
  );
  await expect(change).toContainText("Changes to Tier C on");
  const keep = change.getByRole("radio", { name: new RegExp(PROFILE_TEXT.keepPlan("Tier B")) });
  await expect(keep).toHaveCount(1);
  await expect(change).toContainText(
    PROFILE_TEXT.keepPlanNote({ scheduledPlan: "Tier C", cancelling: false }),
  );
  await change.getByRole("button", { name: PROFILE_TEXT.close }).click();
  await expect(change).toBeHidden();

  // Cancel: confirmed in a dialog, then scheduled for the period end.
  await page.getByRole("button", { name: PROFILE_TEXT.cancelSubscription }).click();
  const confirm = page.getByRole("dialog", { name: PROFILE_TEXT.cancelTitle });
  await expect(confirm).toBeVisible();
  // When it ends, and that the change to Tier C goes with it.
  await expect(confirm.locator("[data-cancel-body]")).toContainText(
    /stay until \d{4}-\d{2}-\d{2}, the end of the current period\./,
  );
  await expect(confirm.locator("[data-cancel-body]")).toContainText(
    "The change to Tier C scheduled for then is dropped.",
  );
  expect(await axeViolations(page)).toEqual([]);
  await confirm.getByRole("button", { name: PROFILE_TEXT.confirmCancel }).click();
  await expect(page.getByText(PLAN_ACTION_TEXT.subscriptionCanceled)).toBeVisible();
  await expect(page.locator("[data-scheduled]")).toContainText("ends on");
  await expect(page.getByRole("button", { name: PROFILE_TEXT.cancelSubscription })).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);

  // Changed their mind: keeping Tier B withdraws the cancellation, and it renews as before.
  await page.getByRole("button", { name: PROFILE_TEXT.changePlan }).click();
  await expect(change).toContainText(PROFILE_TEXT.keepPlanNote({ scheduledPlan: null, cancelling: true }));
  await change.getByRole("radio", { name: new RegExp(PROFILE_TEXT.keepPlan("Tier B")) }).check();
  expect(await axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await change.screenshot({ path: test.info().outputPath("keep-plan-phone.png") });
  await page.setViewportSize({ width: 1280, height: 900 });
  await change.getByRole("button", { name: PROFILE_TEXT.updatePlan }).click();
  await expect(page.getByText(PLAN_ACTION_TEXT.planUpdated)).toBeVisible();
  await expect(change).toBeHidden();
  await expect(page.locator("[data-scheduled]")).toHaveCount(0);
  await expect(page.getByRole("button", { name: PROFILE_TEXT.cancelSubscription })).toBeVisible();
  await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("Tier B");
  // Nothing pending now: Tier B is not offered, and nothing is left chosen to send.
  await page.getByRole("button", { name: PROFILE_TEXT.changePlan }).click();
  await expect(change.getByRole("radio")).toHaveCount(4);
  await expect(change.getByRole("radio", { checked: true })).toHaveCount(0);
  await expect(change.getByRole("button", { name: PROFILE_TEXT.updatePlan })).toBeDisabled();
  await change.getByRole("button", { name: PROFILE_TEXT.close }).click();

  await visibleGreeting(page, user.username).click();
  await page.getByRole("button", { name: UI_TEXT.signOut }).first().click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
});

test("a declined card stays on the checkout, and cancelling it shows 'Payment Failed'", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "declined");
  await openSignedIn(page, await tokenViaApi(request, user), "/plans");
  await page
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ })
    .click();
  await pay(page, "4000 0000 0000 0002");
  await expect(page.getByText("Your card was declined.")).toBeVisible();
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/payment\/failed$/);
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.failed })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole("link", { name: PAYMENT_TEXT.tryAgain }).click();
  await expect(page).toHaveURL(/\/plans$/);
});

test("a visitor's subscribe button leads to the login page and back to /plans", async ({ page, request }) => {
  const user = await createVerifiedUser(request, "visitor");
  await page.goto("/plans");
  const subscribe = page.locator('[data-plan-card][data-tier="C"]').getByRole("link", { name: /to Tier C/ });
  // Before the island runs the link registers (no JavaScript); once it runs it goes to the login.
  await expect(subscribe).toHaveAttribute("href", "/login");
  await subscribe.click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
  await expect(page).toHaveURL(/\/plans$/);
  // The button needs the page's sixteen islands hydrated and users/me answered: on a 2-core machine
  // running two browser workers that took just over the default 5 s (the button was there at 5.x s).
  await expect(
    page.locator('[data-plan-card][data-tier="C"]').getByRole("button", { name: /to Tier C/ }),
  ).toBeVisible({ timeout: 15_000 });
});

test("the live prices show rounded up with their symbol and '(excl. VAT)'", async ({ page, request }) => {
  const { data } = (await (await request.get("/v1/subscription/products")).json()) as {
    data: { name: string; default_price: { unit_amount: number; currency: string } }[];
  };
  await page.goto("/plans");
  for (const product of data) {
    const symbol = product.default_price.currency === "usd" ? "$" : "€";
    const whole = Math.ceil(product.default_price.unit_amount / 100).toLocaleString("en-US");
    const card = page
      .locator("[data-plan-card]")
      .filter({ has: page.getByRole("heading", { name: product.name }) });
    await expect(card.locator('[data-island-slot="plan-price"]')).toHaveText(`${symbol}${whole}(excl. VAT)`);
  }
  expect(ERROR_TEXT.checkoutFailed).toBe("Oops something went wrong! Try again or contact support.");
});
