// Selling in the EU, in the browser: the local checkout asks who is buying, shows net, VAT and total
// before Pay, charges that total, and the payment appears on /profile/billing with a numbered,
// printable invoice; a French business with a VAT ID pays no VAT under reverse charge.
import { readFile } from "node:fs/promises";
import { TIERS } from "../../contract/catalogue.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { FRENCH_BUSINESS, GERMAN_CONSUMER, giveBillingDetails } from "../fixtures/checkout.ts";
import { pdfText } from "../fixtures/pdf-text.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 120_000 });

const T = BILLING_TEXT;
const euros = (cents: number) => `€${(cents / 100).toFixed(2)}`;
const net = TIERS.find((t) => t.key === "A")?.unitAmount ?? 0;
/** 19 %, rounded to the nearest cent (half up). */
const germanVat = Math.floor((net * 1900 + 5000) / 10_000);
const shots = process.env.SCREENSHOT_DIR;

test("a German address: 19 % is shown before Pay, charged, and on the invoice", async ({ page, request }) => {
  const user = await createVerifiedUser(request, "vatde");
  await openSignedIn(page, await tokenViaApi(request, user), "/plans");
  await page
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ })
    .click();

  // The details step: errors are shown next to the field they are about.
  await expect(page.getByRole("heading", { name: "Billing details" })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByLabel("Name on the invoice").fill("Erika Mustermann");
  await page.getByLabel("Country").selectOption({ label: "Germany" });
  await page.getByLabel(/^VAT ID/).fill("DE999");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel(/^VAT ID/)).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#buyer-vat-id-error")).toHaveText(
    "This VAT ID is not valid. Check it or leave the field empty.",
  );
  expect(await axeViolations(page)).toEqual([]);
  if (shots) await page.screenshot({ path: `${shots}/checkout-details-error.png`, fullPage: true });

  await giveBillingDetails(page, GERMAN_CONSUMER);
  const summary = page.getByRole("table", { name: "Order summary" });
  await expect(summary.getByRole("row", { name: /Net/ })).toContainText(euros(net));
  await expect(summary.getByRole("row", { name: /VAT \(19 %\)/ })).toContainText(euros(germanVat));
  await expect(summary.getByRole("row", { name: /Total/ })).toContainText(euros(net + germanVat));
  expect(await axeViolations(page)).toEqual([]);
  if (shots) await page.screenshot({ path: `${shots}/checkout-total-de.png`, fullPage: true });
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();

  // The billing history, reached from the account menu's page.
  await expect(async () => {
    await page.goto("/profile/billing");
    await expect(page.locator("[data-invoice-row]")).toHaveCount(1, { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  const row = page.locator("[data-invoice-row]");
  await expect(row).toContainText("Tier A monthly subscription");
  await expect(row).toContainText(euros(net));
  await expect(row).toContainText(euros(germanVat));
  await expect(row).toContainText("19 %");
  await expect(row).toContainText(euros(net + germanVat));
  await expect(row).toContainText(T.statusLabels.paid);
  const details = page.locator("[data-billing-details]");
  await expect(details).toContainText("Erika Mustermann");
  await expect(details).toContainText("Germany");
  await expect(page.getByRole("button", { name: T.updatePaymentMethod })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  if (shots) {
    await page.screenshot({ path: `${shots}/billing-history.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/billing-history-phone.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: `${shots}/billing-history-phone-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 720 });
  }

  // The invoice: number, seller and buyer, net, VAT with its rate, total.
  await row.getByRole("link", { name: /^View INV-\d{4}-\d{6}$/ }).click();
  await expect(page).toHaveURL(/\/profile\/billing\/invoice\?id=/);
  const invoice = page.locator("[data-invoice]");
  await expect(invoice.locator("[data-invoice-number]")).toHaveText(/^INV-\d{4}-\d{6}$/);
  await expect(invoice).toContainText("Erika Mustermann");
  await expect(invoice).toContainText(user.email);
  await expect(invoice.locator("[data-invoice-vat]")).toContainText("VAT 19 %");
  await expect(invoice.locator("[data-invoice-vat]")).toContainText(euros(germanVat));
  await expect(invoice.locator("[data-invoice-total]")).toContainText(euros(net + germanVat));
  await expect(invoice.locator("[data-invoice-total]")).toContainText("EUR");
  await expect(invoice.locator("[data-invoice-note]")).toHaveCount(0);
  await expect(page.getByRole("button", { name: T.print })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  if (shots) await page.screenshot({ path: `${shots}/invoice-de.png`, fullPage: true });

  // The same invoice as a PDF, named after its number, with the same words and amounts.
  const number = (await invoice.locator("[data-invoice-number]").textContent()) ?? "";
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: T.downloadPdf }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${number}.pdf`);
  const text = await pdfText(new Uint8Array(await readFile(await download.path())));
  for (const shown of [`Invoice number: ${number}`, "Erika Mustermann", "VAT 19 %", euros(net + germanVat)]) {
    expect(text).toContain(shown);
  }
});

test("a French VAT ID: reverse charge, 0 % charged, and the note on the invoice", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "vatfr");
  await openSignedIn(page, await tokenViaApi(request, user), "/plans");
  await page
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ })
    .click();
  await giveBillingDetails(page, FRENCH_BUSINESS);
  const summary = page.getByRole("table", { name: "Order summary" });
  await expect(summary.getByRole("row", { name: /VAT \(0 %, reverse charge\)/ })).toContainText(euros(0));
  await expect(summary.getByRole("row", { name: /Total/ })).toContainText(euros(net));
  await expect(page.getByText(/^Reverse charge: VAT is to be accounted for by the recipient/)).toBeVisible();
  if (shots) await page.screenshot({ path: `${shots}/checkout-total-fr.png`, fullPage: true });
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();

  await expect(async () => {
    await page.goto("/profile/billing");
    await expect(page.locator("[data-invoice-row]")).toHaveCount(1, { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.locator("[data-invoice-row]")).toContainText("0 %, reverse charge");
  await expect(page.locator("[data-billing-details]")).toContainText("FR40303265045");
  await page
    .locator("[data-invoice-row]")
    .getByRole("link", { name: /^View / })
    .click();
  const invoice = page.locator("[data-invoice]");
  await expect(invoice).toContainText("VAT ID FR40303265045");
  await expect(invoice.locator("[data-invoice-vat]")).toContainText("0 %, reverse charge");
  await expect(invoice.locator("[data-invoice-total]")).toContainText(euros(net));
  await expect(invoice.locator("[data-invoice-note]")).toHaveText(/^Reverse charge/);
  expect(await axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  if (shots) await page.screenshot({ path: `${shots}/invoice-fr-phone.png`, fullPage: true });
});
