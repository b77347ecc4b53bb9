// The frame around every page: top bar, mobile menu (no JavaScript needed), footer, Back control,
// home buttons, the static form shells, and the files crawlers and CDNs read.
import { readFile } from "node:fs/promises";
import { axeViolations } from "../fixtures/axe.ts";
import { COLOR_SCHEMES } from "../fixtures/pages.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe("without JavaScript on a 390 px phone", () => {
  test.use({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });

  test("the mobile menu opens and holds the top bar's and the footer's links", async ({ page }) => {
    await page.goto("/plans");
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await expect(menu).toBeHidden();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await page.getByText("Menu", { exact: true }).click();
    await expect(menu).toBeVisible();

    const footerHrefs = await page
      .locator("footer nav a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(footerHrefs.length).toBeGreaterThan(5);
    const menuHrefs = await menu
      .locator("a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(menuHrefs).toEqual(expect.arrayContaining([...footerHrefs, "/plans", "/login", "/register"]));
    await expect(menu.getByRole("link", { name: /Report a bug/ })).toBeVisible();
  });

  test("the mobile menu opens and closes from the keyboard", async ({ page }) => {
    await page.goto("/");
    const menu = page.getByRole("navigation", { name: "Mobile" });
    const summary = page.locator("[data-mobile-menu] summary");
    await summary.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toBeVisible();
    await page.keyboard.press("Space");
    await expect(menu).toBeHidden();
  });
});

// axe runs inside the page, so these sweeps need JavaScript; the menu itself does not.
test.describe("on a 390 px phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  for (const colorScheme of COLOR_SCHEMES) {
    test(`the open mobile menu has no axe violations in the ${colorScheme} theme`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      await page.getByText("Menu", { exact: true }).click();
      await expect(page.getByRole("navigation", { name: "Mobile" })).toBeVisible();
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

test.describe("on a 1280 px desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });

  test("a visitor sees Buy Subscription, Report a bug, Log In and Register in the top bar", async ({
    page,
  }) => {
    await page.goto("/");
    const bar = page.getByRole("banner");
    await expect(page.locator("[data-mobile-menu] summary")).toBeHidden();
    await expect(bar.getByRole("link", { name: "Buy Subscription" })).toHaveAttribute("href", "/plans");
    await expect(bar.getByRole("link", { name: /Report a bug/ })).toHaveAttribute("target", "_blank");
    const account = bar.locator('[data-island-slot="account"]');
    await expect(account.getByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    await expect(account.getByRole("link", { name: "Register" })).toHaveAttribute("href", "/register");
  });

  test("the footer has help, legal and social links", async ({ page }) => {
    await page.goto("/");
    for (const [group, names] of [
      ["Help", [/Helpcenter/, /Technical Documentation/, /Request Custom-AI-Filter/, /Contact/]],
      ["Legal", [/Privacy/, /Imprint/, /Terms/]],
    ] as const) {
      const nav = page.getByRole("contentinfo").getByRole("navigation", { name: group });
      for (const name of names) await expect(nav.getByRole("link", { name })).toBeVisible();
    }
    const social = page.getByRole("contentinfo").getByRole("navigation", { name: "Social" });
    expect(await social.getByRole("link").count()).toBeGreaterThan(0);
  });
});

test("home lists Log In, Buy Subscription and the three external pages as buttons, in that order", async ({
  page,
}) => {
  await page.goto("/");
  const buttons = page.getByRole("main").getByRole("link");
  await expect(buttons).toHaveText([
    "Log In",
    "Buy Subscription",
    /^Helpcenter/,
    /^Technical Documentation/,
    /^Request Custom-AI-Filter/,
  ]);
  await expect(buttons.nth(0)).toHaveAttribute("href", "/login");
  await expect(buttons.nth(1)).toHaveAttribute("href", "/plans");
  for (const index of [2, 3, 4]) {
    await expect(buttons.nth(index)).toHaveAttribute("target", "_blank");
    await expect(buttons.nth(index)).toHaveAttribute("rel", "noopener noreferrer");
  }
});

test("/forgot-password has the spec's title, field, helper text, Submit button and a Back control to /", async ({
  page,
}) => {
  await page.goto("/forgot-password");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Forgot Password?");
  const email = page.getByLabel("Email");
  await expect(email).toHaveAttribute("placeholder", "Write your email");
  await expect(email).toHaveAttribute("name", "email");
  await expect(email).toHaveAccessibleDescription("Enter your email to get a link to reset your password");
  await expect(page.getByRole("button", { name: "Submit" })).toBeVisible();
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL(/\/$/);
});

test("/login has username and password fields and links to /forgot-password and /register", async ({
  page,
}) => {
  await page.goto("/login");
  await expect(page.getByLabel("Username")).toHaveAttribute("name", "username");
  await expect(page.getByLabel("Password")).toHaveAttribute("type", "password");
  await expect(page.getByRole("link", { name: "Forgot password?" })).toHaveAttribute(
    "href",
    "/forgot-password",
  );
  await expect(page.getByRole("main").getByRole("link", { name: "Register" })).toHaveAttribute(
    "href",
    "/register",
  );
});

test("/register has the fields email, username, password and confirmPassword and links to /login", async ({
  page,
}) => {
  await page.goto("/register");
  const names = await page
    .locator("main form input")
    .evaluateAll((inputs) => inputs.map((i) => i.getAttribute("name")));
  expect(names).toEqual(["email", "username", "password", "confirmPassword"]);
  await expect(page.getByRole("main").getByRole("link", { name: "Log In" })).toHaveAttribute(
    "href",
    "/login",
  );
});

test("robots.txt keeps crawlers off private pages and names the sitemap, which lists only public pages", async ({
  request,
}) => {
  const robots = await (await request.get("/robots.txt")).text();
  for (const path of ["/profile", "/payment", "/verify-email", "/reset-password"]) {
    expect(robots).toContain(`Disallow: ${path}`);
  }
  const sitemapUrl = /Sitemap: (\S+)/.exec(robots)?.[1];
  expect(sitemapUrl).toMatch(/\/sitemap-index\.xml$/);
  expect((await request.get("/sitemap-index.xml")).status()).toBe(200);
  const sitemap = await (await request.get("/sitemap-0.xml")).text();
  expect(sitemap).toContain("/plans/");
  expect(sitemap).not.toMatch(/profile|payment|verify-email|reset-password|404/);
});

test("the CDN _headers file gives each page the same CSP the Node server sends", async ({ request }) => {
  const headers = await readFile("dist/_headers", "utf8");
  const redirects = await readFile("dist/_redirects", "utf8");
  expect(redirects).toContain("/payment/*  /payment/index.html  200");
  for (const path of ["/", "/plans", "/login", "/payment"]) {
    const served = (await request.get(path)).headers()["content-security-policy"];
    expect(served).toContain("frame-ancestors 'none'");
    expect(headers).toContain(`${path}\n  Content-Security-Policy: ${served}\n`);
  }
});

for (const colorScheme of COLOR_SCHEMES) {
  test(`the FAQ with every answer open has no axe violations in the ${colorScheme} theme`, async ({
    page,
  }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/plans");
    for (const summary of await page.locator("[data-faq] summary").all()) await summary.click();
    await expect(page.locator("[data-faq] details[open]")).toHaveCount(
      await page.locator("[data-faq] details").count(),
    );
    expect(await axeViolations(page)).toEqual([]);
  });
}
