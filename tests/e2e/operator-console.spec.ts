// The operator console as staff use it on a busy day: support finds a customer by the start of a
// key quoted in their e-mail and grants goodwill credits with a reason; an admin disables an
// account and the customer's next page load says so; the audit log shows both. Phone and desktop,
// light and dark, checked with axe.
import type { Customer, VatReportView } from "../../contract/admin.ts";
import { ADMIN_TEXT } from "../../contract/admin-rules.ts";
import { TIERS } from "../../contract/catalogue.ts";
import { AUDIT_PAGE_TEXT } from "../../src/lib/admin-audit-text.ts";
import { DASHBOARD_TEXT } from "../../src/lib/admin-dashboard-text.ts";
import { REPORTS_PAGE_TEXT } from "../../src/lib/admin-reports-text.ts";
import { ADMIN_PAGE_TEXT, CREDIT_PROBLEMS } from "../../src/lib/admin-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { UI_TEXT } from "../../src/lib/ui-text.ts";
import { createVerifiedUser, openSignedIn, tokenViaApi, visibleGreeting } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { buyTierAViaForms, payOnCheckout } from "../fixtures/checkout.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const A = {
  ...ADMIN_PAGE_TEXT,
  audit: AUDIT_PAGE_TEXT,
  dashboard: DASHBOARD_TEXT,
  reports: REPORTS_PAGE_TEXT,
};

async function apiKeyOf(request: import("@playwright/test").APIRequestContext, token: string) {
  const res = await request.post("/v1/api-keys", {
    headers: { Authorization: `Bearer ${token}` },
    data: { name: "Render farm" },
  });
  expect(res.status()).toBe(201);
  return (await res.json()) as { prefix: string; key: string };
}

test("support finds a customer by key prefix and grants 100 credits; the customer's profile shows them", async ({
  page,
  request,
  browser,
}) => {
  const customer = await createVerifiedUser(request, "cust");
  const customerToken = await tokenViaApi(request, customer);
  const key = await apiKeyOf(request, customerToken);
  const support = await createVerifiedUser(request, "sup");

  await openSignedIn(page, await staffViaCli(request, support, "support"), "/profile");
  // The account menu offers the console to staff.
  await visibleGreeting(page, support.username).click();
  await page.getByRole("link", { name: UI_TEXT.operatorConsole }).first().click();
  await expect(page).toHaveURL(/\/admin\/customers$/);
  await expect(page.getByRole("heading", { level: 1, name: A.customers.title })).toBeVisible();

  // "My key gpk_3xT9… stopped working": the start of the key is enough.
  await page.getByLabel(A.customers.searchLabel).fill(`${key.prefix.slice(0, 10)}…`);
  await page.getByRole("button", { name: A.customers.search }).click();
  const row = page.locator("[data-customer-row]");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(customer.username);
  expect(await axeViolations(page)).toEqual([]);
  await row.getByRole("link", { name: customer.username }).click();

  await expect(page).toHaveURL(/\/admin\/customers\/[0-9a-f-]{36}$/);
  await expect(page.locator("[data-customer-name]")).toContainText(customer.username);
  await expect(page.locator("[data-customer-balance]")).toHaveText("50");
  // Support sees only what support may do.
  await expect(page.locator("[data-action]")).toHaveText([A.actions.grant, A.actions.sendReset]);
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole("button", { name: A.actions.grant }).click();
  const dialog = page.getByRole("dialog", { name: `${A.actions.grant}: ${customer.username}` });
  await dialog.getByLabel(A.actions.amount).fill("100");
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  // The reason is required, and said next to the field.
  await expect(dialog.locator("[data-action-error]")).toHaveText("Give a reason");
  await expect(dialog.getByLabel(A.actions.reason)).toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel(A.actions.reason).fill("Renders failed during the outage of 24 November");
  // A minus sign is no take-back here: the grant says so beside the Credits field, which alone is
  // marked, and no toast repeats it.
  await dialog.getByLabel(A.actions.amount).fill("-10");
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  await expect(dialog.locator("[data-action-error]")).toHaveText(CREDIT_PROBLEMS.grantAboveZero);
  await expect(dialog.locator('[data-field-error="amount"]')).toHaveText(CREDIT_PROBLEMS.grantAboveZero);
  await expect(dialog.getByLabel(A.actions.amount)).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.getByLabel(A.actions.amount)).toHaveAccessibleDescription(
    CREDIT_PROBLEMS.grantAboveZero,
  );
  await expect(dialog.getByLabel(A.actions.reason)).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(CREDIT_PROBLEMS.grantAboveZero)).toHaveCount(1);
  await dialog.getByLabel(A.actions.amount).fill("100");
  // The expiry is typed as the console writes days; a locale's date is refused beside the field.
  await dialog.getByLabel(A.actions.expires).fill("12/31/2099");
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  await expect(dialog.locator('[data-field-error="expires_at"]')).toHaveText(ADMIN_TEXT.dayInvalid);
  await expect(dialog.getByLabel(A.actions.amount)).not.toHaveAttribute("aria-invalid", "true");
  await dialog.getByLabel(A.actions.expires).fill("2099-12-31");
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  await expect(page.getByText(`${A.actions.grant}: done`)).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(page.locator("[data-customer-balance]")).toHaveText("150");
  await expect(page.locator('[data-audit-entry="credits.grant"]')).toContainText(
    "Renders failed during the outage",
  );
  await expect(page.locator('[data-ledger-line="grant"]').first()).toContainText("Goodwill credits");

  // The customer sees the credits on /profile.
  const customerPage = await browser.newPage();
  await openSignedIn(customerPage, customerToken, "/profile");
  await expect(customerPage.locator("[data-credit-balance]").first()).toContainText("150");
  await customerPage.close();
});

test("a grant past its expiry shows nothing left, marked expired, while live credits stay as left", async ({
  page,
  request,
}) => {
  const customer = await createVerifiedUser(request, "exp");
  const support = await createVerifiedUser(request, "supx");
  const token = await staffViaCli(request, support, "support");
  // The month's Tier A credits ran out two months before the server's time with all of it unspent:
  // the ledger keeps the 1,000, the balance (50, the free credits) does not count them.
  await page.route("**/v1/admin/customers/*", async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const answer = await route.fetch();
    const body = (await answer.json()) as Customer;
    const asOf = Date.parse(body.as_of ?? "");
    const day = 86_400_000;
    const expired: Customer["credits"][number] = {
      kind: "subscription",
      amount: 1000,
      remaining: 1000,
      granted_at: new Date(asOf - 91 * day).toISOString(),
      expires_at: new Date(asOf - 60 * day).toISOString(),
      source: "Tier A subscription",
    };
    await route.fulfill({ response: answer, json: { ...body, credits: [...body.credits, expired] } });
  });
  await openSignedIn(page, token, `/admin/customers?q=${customer.username}`);
  await page.locator("[data-customer-row]").getByRole("link", { name: customer.username }).click();
  await expect(page.locator("[data-customer-balance]")).toHaveText("50");
  const gone = page.locator('[data-credit-grant="expired"]');
  await expect(gone).toHaveCount(1);
  await expect(gone.locator("td").nth(2)).toHaveText(`0${A.customer.expiredUnspent("1,000")}`);
  await expect(gone.locator("td").nth(4)).toContainText(A.customer.expired);
  const live = page.locator('[data-credit-grant="live"]');
  await expect(live).toHaveCount(1);
  await expect(live.locator("td").nth(2)).toHaveText("50");
  expect(await axeViolations(page)).toEqual([]);
});

test("an admin disables an account, the customer's next page load says so, and the audit log shows it", async ({
  page,
  request,
  browser,
}) => {
  const customer = await createVerifiedUser(request, "dis");
  const customerToken = await tokenViaApi(request, customer);
  const admin = await createVerifiedUser(request, "adm");

  await openSignedIn(
    page,
    await staffViaCli(request, admin, "admin"),
    `/admin/customers?q=${customer.username}`,
  );
  await page.locator("[data-customer-row]").getByRole("link", { name: customer.username }).click();
  await page.getByRole("button", { name: A.actions.disable }).click();
  const dialog = page.getByRole("dialog", { name: `${A.actions.disable}: ${customer.username}` });
  await dialog.getByLabel(A.actions.reason).fill("Card testing from this account");
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  await expect(page.locator("[data-disabled-banner]")).toBeVisible();
  await expect(page.getByRole("button", { name: A.actions.enable })).toBeVisible();

  // The customer's next page load: signed out, with the reason.
  const customerPage = await browser.newPage();
  await openSignedIn(customerPage, customerToken, "/profile");
  // Two page loads and a toast view loaded on demand: on a busy machine more than 5 s.
  await expect(customerPage.getByText("Account disabled. Contact support.")).toBeVisible({
    timeout: 15_000,
  });
  await expect(customerPage).toHaveURL(/\/$/);
  await customerPage.close();

  await page.getByRole("link", { name: A.nav.audit }).click();
  await expect(page.getByRole("heading", { level: 1, name: A.audit.title })).toBeVisible();
  await page.getByLabel(A.audit.action).fill("account.");
  await page.getByRole("button", { name: A.audit.apply }).click();
  await expect(page.locator('[data-audit-row="account.disable"]').first()).toContainText(
    "Card testing from this account",
  );
  expect(await axeViolations(page)).toEqual([]);
});

test("an admin refunds a top-up; the customer's billing history shows the refund and its credit note", async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(180_000);
  const customer = await createVerifiedUser(request, "refund");
  // A context of its own (axe needs one): the customer's browser beside the admin's.
  const customerContext = await browser.newContext();
  const customerPage = await customerContext.newPage();
  await openSignedIn(customerPage, await tokenViaApi(request, customer), "/plans");
  await customerPage
    .locator('[data-plan-card][data-tier="A"]')
    .getByRole("button", { name: /to Tier A/ })
    .click();
  await payOnCheckout(customerPage, "4242 4242 4242 4242");
  await expect(customerPage).toHaveURL(/\/payment\/success$/);
  await expect(async () => {
    await customerPage.goto("/profile");
    await customerPage.getByRole("radio", { name: /500 credit pack/ }).check({ timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await customerPage.getByRole("button", { name: PROFILE_TEXT.buy, exact: true }).click();
  await payOnCheckout(customerPage, "4242 4242 4242 4242");
  await expect(customerPage).toHaveURL(/\/payment\/success$/);

  const admin = await createVerifiedUser(request, "refadm");
  await openSignedIn(
    page,
    await staffViaCli(request, admin, "admin"),
    `/admin/customers?q=${customer.username}`,
  );
  await page.locator("[data-customer-row]").getByRole("link", { name: customer.username }).click();
  const payments = page.locator("[data-payment]");
  await expect(payments).toHaveCount(2, { timeout: 15_000 });
  // Payments are a tab of the customer page; the reload below keeps it open (#payments).
  // The provider's ids, to find the customer and the payment in Stripe's dashboard: read-only, a
  // click selects the whole id to copy.
  const overviewIds = page.locator("[data-customer-overview] [data-provider-id]");
  await expect(overviewIds).toHaveText([/^cus_\w+$/, /^sub_\w+$/]);
  expect(await overviewIds.first().evaluate((el) => getComputedStyle(el).userSelect)).toBe("all");
  await page.getByRole("tab", { name: A.customer.sections.payments }).click();
  const topUp = payments.filter({ hasText: "500 credit pack" });
  await expect(topUp).toContainText(BILLING_TEXT.statusLabels.paid);
  await expect(topUp.locator("[data-payment-provider-ids] [data-provider-id]").last()).toHaveText(/^pi_\w+$/);
  await topUp.getByRole("button", { name: /^Refund/ }).click();
  const dialog = page.getByRole("dialog", { name: /^Refund:/ });
  await expect(dialog).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByLabel(A.actions.reason).fill("Bought twice by mistake, asked on the phone");
  // Every title the dialog shows from here on, the one it fades out with included: it must keep
  // naming the payment (it emptied to "Refund:" as it closed).
  const invoiceTitle = (await dialog.locator("h2").first().textContent()) ?? "";
  expect(invoiceTitle).toMatch(/^Refund: \S/);
  await page.evaluate(() => {
    const shown = document.querySelector("dialog[open]");
    const seen: string[] = [];
    (window as unknown as { refundTitles: string[] }).refundTitles = seen;
    if (shown)
      new MutationObserver(() => seen.push(shown.querySelector("h2")?.textContent ?? "")).observe(shown, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
  });
  // The API records the refund only when the provider's charge.refunded comes back (the local
  // checkout's comes at once). The page's read after the refund is held here, so the row is seen
  // as the provider's answer leaves it, without a reload: the refund requested beside the status as
  // listed, never "Refunded" before the API says so, and not offered again.
  let releaseRead = () => {};
  const readHeld = new Promise<void>((resolve) => {
    releaseRead = resolve;
  });
  await page.route(
    "**/v1/admin/customers/*/payments",
    async (route) => {
      await readHeld;
      await route.continue();
    },
    { times: 1 },
  );
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  const requested = topUp.locator("[data-refund-pending]");
  await expect(requested).toHaveText(A.customer.refundRequested);
  expect(Number(await requested.getAttribute("data-refund-pending"))).toBeGreaterThan(0);
  await expect(topUp).toContainText(BILLING_TEXT.statusLabels.paid);
  await expect(topUp).not.toContainText(BILLING_TEXT.statusLabels.refunded);
  await expect(topUp.getByRole("button", { name: /^Refund/ })).toHaveCount(0);
  releaseRead();
  await expect(page.getByText(A.actions.refundDone)).toBeVisible();
  const titles = await page.evaluate(() => (window as unknown as { refundTitles: string[] }).refundTitles);
  expect(new Set(titles)).toEqual(new Set([invoiceTitle]));
  // The credit note follows on the page as it is: it reads the customer again until the API has it,
  // and the row then says what the API recorded.
  await expect(topUp).toContainText("CN-", { timeout: 20_000 });
  await expect(requested).toHaveCount(0);
  await expect(topUp).toContainText(BILLING_TEXT.statusLabels.refunded);
  await page.reload();
  await expect(topUp).toContainText("CN-");
  await expect(topUp).toContainText(BILLING_TEXT.statusLabels.refunded);
  // The ledger names the refunded payment as the list above does, not by the provider's charge.
  const creditNoteNumber = (await topUp.getByText(/^CN-/).textContent()) ?? "";
  await expect(page.locator('[data-ledger-line="refund"]')).toContainText(
    `Payment refunded (${invoiceTitle.replace(/^Refund: /, "")}; credit note ${creditNoteNumber})`,
  );
  await expect(page.locator('[data-audit-entry="payment.refund"]')).toContainText("Bought twice by mistake");

  await customerPage.goto("/profile/billing");
  const creditNote = customerPage
    .locator("[data-invoice-row]")
    .filter({ hasText: BILLING_TEXT.creditNoteLabel });
  await expect(creditNote.first()).toContainText("Refund of INV-");
  await expect(
    customerPage
      .locator("[data-invoice-row]")
      .filter({ hasText: BILLING_TEXT.statusLabels.refunded })
      .first(),
  ).toContainText("500 credit pack");
  expect(await axeViolations(customerPage)).toEqual([]);
  await creditNote.first().getByRole("link").first().click();
  // Headed, named in the breadcrumb and in the tab as what it is.
  await expect(customerPage.locator("[data-credit-note]")).toBeVisible();
  await expect(customerPage.getByRole("heading", { level: 1 })).toHaveText("Credit note");
  await expect(customerPage.locator("[data-document-crumb]")).toHaveText("Credit note");
  await expect(customerPage).toHaveTitle(/^Credit note/);
  await expect(customerPage.locator("[data-refers-to]")).toContainText("INV-");
  expect(await axeViolations(customerPage)).toEqual([]);
  await customerContext.close();
});

test("the quarter's VAT report: a German consumer, a French consumer and a French business, one refunded", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const admin = await createVerifiedUser(request, "vatadm");
  const adminToken = await staffViaCli(request, admin, "admin");
  const report = async () => {
    const res = await request.get("/v1/admin/reports/vat", {
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    expect(res.status()).toBe(200);
    return (await res.json()) as VatReportView;
  };
  // Other journeys sell in this quarter too (the e2e database is shared): the French buyers here
  // have lines of their own (a VAT ID no other test uses); the domestic line is compared by change.
  const vatId = "FR44732829320";
  const domesticBefore = (await report()).lines.find((l) => l.section === "domestic" && !l.original_quarter);
  const marie = await createVerifiedUser(request, "marie");
  for (const [prefix, buyer] of [
    ["erika", { name: "Erika Mustermann", country: "DE", vat_id: "" }],
    ["sarl", { name: "Exemple SARL", country: "FR", vat_id: vatId }],
  ] as const) {
    const user = await createVerifiedUser(request, prefix);
    await buyTierAViaForms(request, await tokenViaApi(request, user), buyer);
  }
  await buyTierAViaForms(request, await tokenViaApi(request, marie), {
    name: "Marie Dupont",
    country: "FR",
    vat_id: "",
  });

  // The French consumer's payment is refunded from the console.
  await openSignedIn(page, adminToken, `/admin/customers?q=${marie.username}`);
  await page.locator("[data-customer-row]").getByRole("link", { name: marie.username }).click();
  await expect(page.locator("[data-payment]")).toHaveCount(1, { timeout: 15_000 });
  await page.getByRole("tab", { name: A.customer.sections.payments }).click();
  await page
    .locator("[data-payment]")
    .getByRole("button", { name: /^Refund/ })
    .click();
  const dialog = page.getByRole("dialog", { name: /^Refund:/ });
  await dialog.getByLabel(A.actions.reason).fill("Withdrawal within 14 days");
  await dialog.getByRole("button", { name: A.actions.confirm }).click();
  await expect(page.getByText(A.actions.refundDone)).toBeVisible();

  const net = TIERS.find((t) => t.key === "A")?.unitAmount ?? 0;
  const fr = Math.floor((net * 2000 + 5000) / 10_000);
  const de = Math.floor((net * 1900 + 5000) / 10_000);
  let after: VatReportView | undefined;
  await expect(async () => {
    after = await report();
    expect(
      after.lines.filter((l) => l.section === "oss" && l.country === "FR" && l.original_quarter),
    ).toHaveLength(1);
  }).toPass({ timeout: 20_000 });
  const lines = after?.lines ?? [];
  const quarter = after?.quarter ?? "";
  expect(lines.filter((l) => l.section === "oss" && l.country === "FR")).toEqual([
    {
      section: "oss",
      country: "FR",
      rate: 20,
      vat_id: null,
      original_quarter: null,
      currency: "eur",
      net,
      vat: fr,
      documents: 1,
    },
    {
      section: "oss",
      country: "FR",
      rate: 20,
      vat_id: null,
      original_quarter: quarter,
      currency: "eur",
      net: -net,
      vat: -fr,
      documents: 1,
    },
  ]);
  expect(lines.filter((l) => l.vat_id === vatId)).toEqual([
    {
      section: "reverse_charge",
      country: "FR",
      rate: null,
      vat_id: vatId,
      original_quarter: null,
      currency: "eur",
      net,
      vat: 0,
      documents: 1,
    },
  ]);
  const domestic = lines.find((l) => l.section === "domestic" && !l.original_quarter);
  expect(domestic?.rate).toBe(19);
  expect((domestic?.documents ?? 0) - (domesticBefore?.documents ?? 0)).toBeGreaterThanOrEqual(1);
  expect((domestic?.vat ?? 0) - (domesticBefore?.vat ?? 0)).toBeGreaterThanOrEqual(de);

  // The page shows the same lines, section by section, and offers the CSV.
  await page.getByRole("link", { name: A.nav.reports }).click();
  await expect(page.getByRole("heading", { level: 1, name: A.reports.title })).toBeVisible();
  await expect(page.locator('[data-vat-line="oss"][data-refund="true"]')).toContainText(quarter);
  await expect(page.locator('[data-vat-line="reverse_charge"]', { hasText: vatId })).toContainText(
    "France (FR)",
  );
  await expect(page.locator("[data-vat-total]")).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: A.reports.download }).click();
  expect((await download).suggestedFilename()).toBe(`vat-${quarter}.csv`);

  // The dashboard counts them among the paying customers and this month's revenue and refunds.
  await page.getByRole("link", { name: A.nav.dashboard }).click();
  await expect(page.getByRole("heading", { level: 1, name: A.dashboard.title })).toBeVisible();
  expect(Number(await page.locator('[data-figure="paying"]').textContent())).toBeGreaterThanOrEqual(2);
  await expect(page.locator("[data-revenue-month]").last()).toContainText("−€");
  await page.locator("[data-daily-table] summary").click();
  await expect(page.getByRole("region", { name: `${A.dashboard.daily}, table` })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

test("the console's pages are for staff only, and read well on a phone in the dark", async ({
  page,
  request,
}) => {
  const customer = await createVerifiedUser(request, "plain");
  await openSignedIn(page, await tokenViaApi(request, customer), "/admin/customers");
  await expect(page).toHaveURL(/\/$/);
  const robots = await (await request.get("/robots.txt")).text();
  expect(robots).toContain("Disallow: /admin");

  const admin = await createVerifiedUser(request, "dark");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await openSignedIn(
    page,
    await staffViaCli(request, admin, "admin"),
    `/admin/customers?q=${customer.username}`,
  );
  await expect(page.locator("[data-customer-row]")).toHaveCount(1);
  expect(await page.locator('meta[name="robots"]').getAttribute("content")).toContain("noindex");
  expect(await axeViolations(page)).toEqual([]);
  await page.locator("[data-customer-row]").getByRole("link").click();
  await expect(page.locator("[data-customer-name]")).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/playwright/console-customer-phone-dark.png", fullPage: true });
});
