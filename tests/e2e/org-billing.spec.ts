// Billing for an organisation in the browser: the billing details form on /profile/billing (the
// API's messages beside the fields, then what is on file), and a team organisation named in every
// dialog that moves its money.
import { BILLING_DETAILS_MESSAGES } from "../../contract/billing-details-messages.ts";
import { countryOptions } from "../../contract/countries.ts";
import { VALIDATION } from "../../contract/messages.ts";
import { VAT_ID_STATUS_BADGE, VAT_ID_STATUS_TEXT } from "../../contract/vat-id-verification.ts";
import { VAT_ID_MESSAGES } from "../../server/domain/vat.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { PAYING_ORG_TEXT } from "../../src/lib/paying-org.ts";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { createOrgViaApi, createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { payOnCheckout } from "../fixtures/checkout.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 120_000 });

const T = BILLING_TEXT;

// The browser notes each refused save (422) in its console; the form shows why beside the field.
test.use({ allowedConsoleErrors: [/status of 422 .*\/v1\/billing\/details/] });

test("billing details are given on /profile/billing, each refusal beside its field", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "bdet");
  await openSignedIn(page, await tokenViaApi(request, user), "/profile/billing");
  const card = page.locator("[data-billing-details]");
  await expect(card).toContainText(T.invoicesGoTo(user.email));
  await card.getByRole("button", { name: T.addDetails }).click();
  // The browser names every country as the local checkout (rendered by the server's Node) does: one
  // table, not each runtime's region names (Chromium's "Hong Kong", Node's "Hong Kong SAR China").
  await expect(card.getByLabel(T.country).locator("option")).toHaveText([
    T.chooseCountry,
    ...countryOptions().map((o) => o.name),
  ]);

  await card.getByLabel(T.name).fill("Acme GmbH");
  // A domain that never receives mail, refused as registration refuses it.
  await card.getByLabel(T.billingEmail).fill("books@acme.localhost");
  await card.getByLabel(T.line1).fill("Hauptstr. 1");
  await card.getByLabel(T.postalCode).fill("10115");
  await card.getByLabel(T.city).fill("");
  await card.getByLabel(T.country).selectOption({ label: "Germany" });
  await card.getByLabel(/^VAT ID/).fill("FR40303265045");
  await card.getByRole("button", { name: T.saveDetails }).click();
  // Every refusal at once, each beside its field: the e-mail's and the VAT ID's with the missing city.
  await expect(card.locator('[data-field-error="city"]')).toHaveText(BILLING_DETAILS_MESSAGES.cityMissing);
  await expect(card.locator('[data-field-error="email"]')).toHaveText(VALIDATION.emailReserved);
  await expect(card.getByLabel(T.billingEmail)).toHaveAttribute("aria-invalid", "true");
  await expect(card.locator('[data-field-error="vat_id"]')).toHaveText(VAT_ID_MESSAGES.otherCountry);
  await expect(card.getByLabel(T.city)).toHaveAttribute("aria-invalid", "true");
  await expect(card.getByLabel(/^VAT ID/)).toHaveAttribute("aria-invalid", "true");
  expect(await axeViolations(page)).toEqual([]);

  await card.getByLabel(T.billingEmail).fill("books@acme.test");
  await card.getByLabel(T.city).fill("Berlin");
  await card.getByLabel(/^VAT ID/).fill("DE136695976");
  await card.getByRole("button", { name: T.saveDetails }).click();
  await expect(page.getByText(BILLING_DETAILS_MESSAGES.saved)).toBeVisible();
  await expect(card).toContainText("Acme GmbH");
  await expect(card).toContainText("Hauptstr. 1, 10115 Berlin");
  await expect(card).toContainText("DE136695976");
  // The local checkout's stand-in confirms a well-formed VAT ID at once: the state says so in words.
  await expect(card.locator('[data-vat-id-status="verified"]')).toContainText(VAT_ID_STATUS_BADGE.verified);
  await expect(card.getByText(VAT_ID_STATUS_TEXT.verified)).toBeVisible();
  await expect(card).toContainText(T.invoicesGoTo("books@acme.test"));
  expect(await axeViolations(page)).toEqual([]);

  // What is on file comes back after a reload.
  await page.reload();
  await expect(page.locator("[data-billing-details]")).toContainText("Acme GmbH");
});

test("a team organisation is named in the dialogs that move its money", async ({ page, request }) => {
  const user = await createVerifiedUser(request, "orgpay");
  const token = await tokenViaApi(request, user);
  const org = await createOrgViaApi(request, token, "Acme");
  await openSignedIn(page, token, "/robots.txt");
  await page.evaluate((id) => localStorage.setItem("x-organization", id), org);

  await page.goto("/plans");
  const subscribe = page
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ });
  await expect(subscribe).toContainText(PAYING_ORG_TEXT.subscribe("Acme").trim());
  await subscribe.click();
  await payOnCheckout(page, "4242 4242 4242 4242");
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();

  await expect(async () => {
    await page.goto("/profile");
    await expect(page.locator("[data-top-ups]")).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.locator("[data-top-ups] [data-paying-org]")).toHaveText(PAYING_ORG_TEXT.topUp("Acme"));
  await page.getByRole("button", { name: /Change Subscription Plan/i }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.locator("[data-paying-org]")).toHaveText(PAYING_ORG_TEXT.changePlan("Acme"));
  expect(await axeViolations(page)).toEqual([]);
});
