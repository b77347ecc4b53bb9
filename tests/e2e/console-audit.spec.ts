// The console's audit log, VAT report and dashboard as an admin reads them on a phone (390 px, dark)
// and at a desk (1280 px, light): audit rows name the browser in short with the whole User-Agent on
// demand, the filters take a username or an e-mail address and the Subject column names the
// account, an empty quarter still lists every section of the VAT filing, and the sign-ups chart
// counts whole people. Checked with axe.
import type { Page } from "@playwright/test";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { AUDIT_PAGE_TEXT } from "../../src/lib/admin-audit-text.ts";
import { REPORTS_PAGE_TEXT } from "../../src/lib/admin-reports-text.ts";
import { ADMIN_PAGE_TEXT } from "../../src/lib/admin-text.ts";
import { localDay } from "../../src/lib/format-date.ts";
import { createVerifiedUser, openSignedIn } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const A = { ...ADMIN_PAGE_TEXT, audit: AUDIT_PAGE_TEXT, reports: REPORTS_PAGE_TEXT };
const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 900 };

async function onPhoneInTheDark(page: Page) {
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme: "dark" });
}

/** Axe's findings at both widths in both themes, each named by where it was found. */
async function axeEverywhere(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const viewport of [PHONE, DESK]) {
    for (const colorScheme of ["dark", "light"] as const) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`${viewport.width} ${colorScheme}: ${v}`);
    }
  }
  return found;
}

async function applyFilter(page: Page, field: "actor" | "subject", value: string) {
  await page.getByRole("button", { name: A.audit.reset }).click();
  await page.getByLabel(field === "actor" ? A.audit.actor : A.audit.subject).fill(value);
  await page.getByRole("button", { name: A.audit.apply }).click();
}

test.describe("the audit log", () => {
  // The browser notes the 422s that refuse an unknown name and a day in another form; the page
  // says them beside their fields.
  test.use({ allowedConsoleErrors: [/status of 422 .*\/v1\/admin\/audit\?(subject=nobody|.*from=24)/] });

  test("audit rows name the browser in short, and the filters take a username or an e-mail", async ({
    page,
    request,
  }) => {
    // Seven axe sweeps of a console page (three on the way, four in axeEverywhere): on CI's busy
    // two cores they took longer than the default minute together.
    test.setTimeout(240_000);
    const customer = await createVerifiedUser(request, "aud");
    // The customer signs in from Chrome on Linux: the log keeps the whole User-Agent.
    const signIn = await request.post("/v1/token", {
      form: { username: customer.username, password: customer.password },
      headers: { "User-Agent": CHROME },
    });
    expect(signIn.status()).toBe(200);
    const admin = await createVerifiedUser(request, "audadm");
    await onPhoneInTheDark(page);
    await openSignedIn(page, await staffViaCli(request, admin, "admin"), "/admin/audit");
    await expect(page.getByRole("heading", { level: 1, name: A.audit.title })).toBeVisible();

    // By username: the customer's rows, named in the Subject column.
    await applyFilter(page, "subject", customer.username);
    await expect(page).toHaveURL(new RegExp(`subject=${customer.username}`));
    const chrome = page.locator('[data-audit-row="login.succeeded"]', { hasText: "Chrome 156 on Linux" });
    await expect(chrome).toHaveCount(1);
    await expect(chrome.locator("[data-subject]")).toHaveText(customer.username);
    await expect(chrome).toContainText(customer.email);
    // The User-Agent is one short line until asked for, by keyboard too.
    const userAgent = chrome.locator("[data-user-agent]");
    await expect(userAgent).toBeHidden();
    expect((await chrome.locator("[data-client]").boundingBox())?.height).toBeLessThan(24);
    await chrome.locator("[data-client] summary").focus();
    await page.keyboard.press("Enter");
    await expect(userAgent).toBeVisible();
    await expect(userAgent).toHaveText(CHROME);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath("console-audit-phone-dark.png"), fullPage: true });

    // By e-mail address, in another case, from today (an ISO day, as the console writes them).
    await applyFilter(page, "subject", customer.email.toUpperCase());
    // Today on the browser's clock (the same as the test's), whose midnight the filter sends.
    await page.getByLabel(A.audit.from).fill(localDay(new Date().toISOString()) ?? "");
    await page.getByRole("button", { name: A.audit.apply }).click();
    await expect(page).toHaveURL(/from=\d{4}-\d\d-\d\d/);
    await expect(chrome).toHaveCount(1);
    // A day in another form is said beside its field.
    await page.getByLabel(A.audit.from).fill("24.11.2026");
    await page.getByRole("button", { name: A.audit.apply }).click();
    await expect(page.locator('[data-field-error="from"]')).toHaveText(ADMIN_TEXT.notIsoTime);
    // The actor filter takes a name too: the admin's own two-factor setup.
    await applyFilter(page, "actor", admin.email);
    await expect(page.locator('[data-audit-row="mfa.enabled"]').first()).toContainText(admin.username);

    // A name no account has: said beside the field, which the keyboard is taken to.
    await applyFilter(page, "subject", "nobody-by-this-name");
    const field = page.getByLabel(A.audit.subject);
    await expect(page.locator('[data-field-error="subject"]')).toHaveText(ADMIN_TEXT.noSuchAccount);
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(field).toBeFocused();
    await expect(page.locator("[data-audit-row]")).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath("console-audit-error-phone-dark.png") });

    // At a desk, in the light.
    await page.setViewportSize(DESK);
    await page.emulateMedia({ colorScheme: "light" });
    // The message beside a field, in the light theme too (its text once measured 2.86:1 there).
    await applyFilter(page, "subject", "nobody-by-this-name");
    await expect(page.locator('[data-field-error="subject"]')).toHaveText(ADMIN_TEXT.noSuchAccount);
    expect(await axeViolations(page)).toEqual([]);
    await applyFilter(page, "subject", customer.username);
    await expect(chrome).toHaveCount(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath("console-audit-desk-light.png"), fullPage: true });
    expect(await axeEverywhere(page)).toEqual([]);
  });
});

test("an empty quarter's VAT report lists every section of the filing, each with none", async ({
  page,
  request,
}) => {
  const admin = await createVerifiedUser(request, "vatnone");
  await onPhoneInTheDark(page);
  // 2020 is before the portal sold anything.
  await openSignedIn(page, await staffViaCli(request, admin, "admin"), "/admin/reports?quarter=2020-Q1");
  await expect(page.locator("[data-vat-report]")).toHaveAttribute("data-status", "ready");
  await expect(page.getByText(A.reports.empty)).toBeVisible();
  for (const title of Object.values(A.reports.sections)) {
    const section = page.getByRole("region", { name: title, exact: true });
    await expect(section).toBeVisible();
    await expect(section).toContainText(A.reports.noneThisQuarter);
  }
  await expect(page.locator("[data-vat-none]")).toHaveCount(Object.keys(A.reports.sections).length);
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-vat-none-phone-dark.png"), fullPage: true });

  await page.setViewportSize(DESK);
  await page.emulateMedia({ colorScheme: "light" });
  await page.screenshot({ path: test.info().outputPath("console-vat-none-desk-light.png"), fullPage: true });
  expect(await axeEverywhere(page)).toEqual([]);
});

test("the dashboard's sign-ups chart counts whole people", async ({ page, request }) => {
  const admin = await createVerifiedUser(request, "dash");
  await onPhoneInTheDark(page);
  await openSignedIn(page, await staffViaCli(request, admin, "admin"), "/admin");
  await expect(page.locator("[data-dashboard]")).toBeVisible();
  // A handful of sign-ups a day: without whole-number marks the axis would read 0.5, 1.5 people.
  const chart = page.locator('[data-section="dash-daily"] canvas[data-usage-chart]');
  await expect(chart).toHaveAttribute("data-y-ticks", /\d/);
  const ticks = ((await chart.getAttribute("data-y-ticks")) ?? "").split(" ").map(Number);
  expect(ticks.length).toBeGreaterThan(1);
  expect(ticks.filter((tick) => !Number.isInteger(tick))).toEqual([]);
  await page.screenshot({ path: test.info().outputPath("console-dashboard-phone-dark.png"), fullPage: true });
  expect(await axeEverywhere(page)).toEqual([]);
});
