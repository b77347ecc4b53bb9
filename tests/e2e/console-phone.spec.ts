// The console on a support agent's phone and on a desk, with a customer of long standing: three
// payments, keys, forty days of use and staff grants. On a phone every table row is a card, so every
// column and every button is on screen; on a desk the customer page stays short (its long parts are
// tabs, the ledger shows its newest lines) and names features as customers know them.
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { featureName } from "../../contract/credit-costs.ts";
import { AUDIT_PAGE_TEXT } from "../../src/lib/admin-audit-text.ts";
import { DASHBOARD_TEXT } from "../../src/lib/admin-dashboard-text.ts";
import { ADMIN_PAGE_TEXT } from "../../src/lib/admin-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { createVerifiedUser, openSignedIn, type TestUser, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { buyTierAViaForms, buyTopUpViaForms } from "../fixtures/checkout.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const A = { ...ADMIN_PAGE_TEXT, audit: AUDIT_PAGE_TEXT, dashboard: DASHBOARD_TEXT };
const S = A.customer.sections;
const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 900 };
const DAY_MS = 86_400_000;
const DAYS_OF_USE = 40;
const BUYER = { name: "Erika Mustermann", country: "DE", vat_id: "" };

/** A customer with a history: three payments, three keys, 40 days of two features, two grants. */
async function longStandingCustomer(request: APIRequestContext, adminToken: string): Promise<TestUser> {
  const customer = await createVerifiedUser(request, "rich");
  const token = await tokenViaApi(request, customer);
  await buyTierAViaForms(request, token, BUYER);
  await expect(async () => buyTopUpViaForms(request, token, BUYER, "500")).toPass({ timeout: 20_000 });
  await buyTopUpViaForms(request, token, BUYER, "1000");
  const auth = { Authorization: `Bearer ${token}` };
  for (const name of ["Render farm", "Laptop", "Shop plug-in"]) {
    expect((await request.post("/v1/api-keys", { headers: auth, data: { name } })).status()).toBe(201);
  }
  const me = (await (await request.get("/v1/users/me", { headers: auth })).json()) as { id: string };
  const service = { Authorization: `Bearer ${await makeServiceKey()}` };
  const now = Date.now();
  for (let day = 0; day < DAYS_OF_USE; day++) {
    for (const feature of ["standard-filter", "comic"]) {
      const res = await request.post("/v1/credits/consume", {
        headers: service,
        data: {
          user_id: me.id,
          feature,
          people: "one",
          idempotency_key: `${customer.username}-${day}-${feature}`,
          at: new Date(now - day * DAY_MS).toISOString(),
        },
      });
      expect(res.status(), await res.text()).toBe(200);
    }
  }
  for (const [amount, reason] of [
    [250, "Goodwill credits: the outage of last Tuesday"],
    [40, "Two renders failed on our side, ticket 4411"],
  ] as const) {
    const res = await request.post(`/v1/admin/customers/${me.id}/credits`, {
      headers: { Authorization: `Bearer ${adminToken}` },
      data: { amount, reason, idempotency_key: `${customer.username}-${amount}` },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  return customer;
}

/** Opens the customer's page from the search, as staff do. */
async function openCustomer(page: Page, customer: TestUser): Promise<void> {
  await page.goto(`/admin/customers?q=${customer.username}`);
  await page.locator("[data-customer-row]").getByRole("link", { name: customer.username }).click();
  await expect(page.locator("[data-customer-name]")).toContainText(customer.username);
  await expect(page.locator("[data-ledger-line]").first()).toBeVisible();
}

/** Nothing of `target` lies beyond the screen's sides: it is seen without scrolling sideways. */
async function expectWithinWidth(page: Page, target: Locator): Promise<void> {
  await expect(target).toBeVisible();
  const box = await target.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  expect(box, "the element has a box").not.toBeNull();
  if (!box) return;
  expect(box.x, "its left edge is on screen").toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, "its right edge is on screen").toBeLessThanOrEqual(width);
}

/** The page is never wider than the screen. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(client);
}

async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tab", { name })).toHaveAttribute("aria-selected", "true");
}

/** Clicks `button`, expects the dialog it opens, and closes it with Cancel. */
async function opensDialog(page: Page, button: Locator, dialogName: RegExp | string): Promise<void> {
  await button.click();
  const dialog = page.getByRole("dialog", { name: dialogName });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: A.actions.cancel }).click();
  await expect(dialog).toBeHidden();
}

/**
 * A tab of the customer page on a phone: each of its three rows shows `column` and its button on
 * screen, and the first row's button opens its dialog.
 */
async function rowsOnPhone(
  page: Page,
  part: { tab: string; rows: string; column: string; button: RegExp; dialog: RegExp; shot: string },
): Promise<void> {
  await openTab(page, part.tab);
  const rows = page.locator(part.rows);
  await expect(rows).toHaveCount(3);
  for (const row of await rows.all()) {
    await expectWithinWidth(page, row.locator(`[data-label="${part.column}"]`));
    await expectWithinWidth(page, row.getByRole("button", { name: part.button }));
  }
  await expectNoSidewaysScroll(page);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({
    path: test.info().outputPath(`console-${part.shot}-phone-dark.png`),
    fullPage: true,
  });
  await opensDialog(page, rows.first().getByRole("button", { name: part.button }), part.dialog);
}

test.describe.configure({ mode: "serial" });

let customer: TestUser;
let adminToken: string;

test.beforeAll(async ({ request }) => {
  test.setTimeout(180_000);
  adminToken = await staffViaCli(request, await createVerifiedUser(request, "phoneadm"), "admin");
  customer = await longStandingCustomer(request, adminToken);
});

test("at 1280 px a long-standing customer's page is under 2,000 px: long parts are tabs, the ledger its newest lines", async ({
  page,
}) => {
  await page.setViewportSize(DESK);
  await openSignedIn(page, adminToken, "/admin/customers");
  await openCustomer(page, customer);

  const ledger = page.locator("[data-ledger-line]");
  await expect(ledger).toHaveCount(10);
  await expect(page.getByText(A.customer.ledgerNewest(10))).toBeVisible();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(2000);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-customer-desk-light.png"), fullPage: true });

  // Spends name the feature as the usage chart does, never by its id.
  const spends = page.locator('[data-ledger-line="spend"]');
  await expect(spends.filter({ hasText: featureName("standard-filter") }).first()).toBeVisible();
  await expect(spends.filter({ hasText: featureName("comic") }).first()).toBeVisible();
  await expect(page.locator("[data-ledger-line]", { hasText: "standard-filter" })).toHaveCount(0);

  // More on demand: the rest of the first page, then older pages from the server.
  await page.getByRole("button", { name: A.customer.more }).click();
  await expect(ledger).toHaveCount(50);
  await page.getByRole("button", { name: A.customer.more }).click();
  await expect(ledger).not.toHaveCount(50);
  // A day's spends count their charges; a grant is one event, with no count to read.
  await expect(spends.first().locator('[data-label="Charges"]')).toHaveText(/^[1-9]\d*$/);
  await expect(
    page.locator('[data-ledger-line="grant"]').first().locator('[data-label="Charges"]'),
  ).toHaveText("");

  // Each part is a tab, kept in the address: a reload opens the same one.
  await openTab(page, S.payments);
  await expect(page.locator("[data-payment]")).toHaveCount(3);
  // Each payment's status in the customer's own words, as their billing history shows it.
  await expect(page.locator("[data-payment]").first()).toContainText(BILLING_TEXT.statusLabels.paid);
  await expect(page.locator('[data-panel="credits"]')).toBeHidden();
  await expect(page).toHaveURL(/#payments$/);
  await page.reload();
  await expect(page.getByRole("tab", { name: S.payments })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("[data-payment]").first()).toBeVisible();
  // The arrow keys move between the tabs.
  await page.getByRole("tab", { name: S.payments }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: S.usage })).toBeFocused();
  await expect(page.locator('[data-panel="usage"]')).toBeVisible();
  await expect(page.locator("canvas[data-usage-chart]")).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

test("on a phone every button of the customer page is on screen and opens its dialog", async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme: "dark" });
  await openSignedIn(page, adminToken, "/admin/customers");
  await openCustomer(page, customer);
  await expectNoSidewaysScroll(page);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-customer-phone-dark.png"), fullPage: true });

  // The account's actions (an admin's: grant, take back, cancel, disable, role, mails).
  const actions = page.locator("[data-action]");
  expect(await actions.count()).toBeGreaterThanOrEqual(5);
  for (const button of await actions.all()) {
    await expectWithinWidth(page, button);
    await opensDialog(page, button, new RegExp(`: ${customer.username}$`));
  }

  // Credits: each part says when it expires; the ledger's lines their feature and amount.
  await expectWithinWidth(page, page.locator('[data-label="Expires"]').first());
  await expectWithinWidth(page, page.locator("[data-ledger-line]").first().locator('[data-label="Credits"]'));

  // Payments: the total, and Refund, on screen for each payment; API keys: the status, and Revoke.
  await rowsOnPhone(page, {
    tab: S.payments,
    rows: "[data-payment]",
    column: A.customer.paymentColumns.total,
    button: /^Refund/,
    dialog: /^Refund:/,
    shot: "payments",
  });
  await rowsOnPhone(page, {
    tab: S.keys,
    rows: "[data-admin-key]",
    column: A.customer.keyColumns.status,
    button: /^Revoke/,
    dialog: /Revoke/,
    shot: "keys",
  });

  // The audit trail: the reason staff gave.
  await openTab(page, S.audit);
  const grant = page.locator('[data-audit-entry="credits.grant"]').first();
  await expectWithinWidth(page, grant.locator(`[data-label="${A.customer.auditColumns.reason}"]`));
  await expect(grant).toContainText("ticket 4411");
  await expectNoSidewaysScroll(page);
  expect(await axeViolations(page)).toEqual([]);

  // The usage chart fits too.
  await openTab(page, S.usage);
  await expectWithinWidth(page, page.locator("canvas[data-usage-chart]"));
  expect(await axeViolations(page)).toEqual([]);
});

// Two tests, not one: with a run's whole audit log on the page, five axe scans and four full-page
// screenshots in one test went past its 60 s on a loaded machine.
test("on a phone the search's results show every column, in both themes, and a desk keeps the table", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme: "dark" });
  await openSignedIn(page, adminToken, `/admin/customers?q=${customer.username}`);
  const row = page.locator("[data-customer-row]");
  await expect(row).toHaveCount(1);
  const C = A.customers.columns;
  for (const label of [C.role, C.plan, C.balance, C.joined, C.status]) {
    await expectWithinWidth(page, row.locator(`[data-label="${label}"]`));
  }
  await expectNoSidewaysScroll(page);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-search-phone-dark.png"), fullPage: true });

  await page.emulateMedia({ colorScheme: "light" });
  expect(await axeViolations(page)).toEqual([]);
  // On a desk the same page keeps its table, every column in view.
  await page.setViewportSize(DESK);
  await expectWithinWidth(page, page.getByRole("columnheader", { name: C.status }));
  await page.screenshot({ path: test.info().outputPath("console-search-desk-light.png"), fullPage: true });
});

test("on a phone the audit log shows every column, in both themes, and a desk keeps the table", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme: "dark" });
  await openSignedIn(page, adminToken, "/admin/audit");
  const reason = page.locator(`[data-label="${A.audit.columns.reason}"]`).first();
  await expectWithinWidth(page, reason);
  await expectNoSidewaysScroll(page);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-audit-phone-dark.png"), fullPage: true });

  await page.emulateMedia({ colorScheme: "light" });
  expect(await axeViolations(page)).toEqual([]);
  await page.setViewportSize(DESK);
  await expectWithinWidth(page, page.getByRole("columnheader", { name: A.audit.columns.reason }));
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-audit-desk-light.png"), fullPage: true });
});

test("the dashboard's tables and the customer page at both widths and themes pass axe", async ({ page }) => {
  for (const [viewport, scheme, name] of [
    [PHONE, "dark", "phone-dark"],
    [DESK, "light", "desk-light"],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: scheme });
    await openSignedIn(page, adminToken, "/admin");
    await expect(page.getByRole("heading", { level: 1, name: A.dashboard.title })).toBeVisible();
    await expect(page.getByRole("region", { name: `${A.dashboard.revenue}, table` })).toBeVisible();
    await expectNoSidewaysScroll(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath(`console-dashboard-${name}.png`), fullPage: true });
    await openCustomer(page, customer);
    expect(await axeViolations(page)).toEqual([]);
  }
  // The other theme at each width too.
  for (const [viewport, scheme] of [
    [PHONE, "light"],
    [DESK, "dark"],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: scheme });
    expect(await axeViolations(page)).toEqual([]);
  }
});
