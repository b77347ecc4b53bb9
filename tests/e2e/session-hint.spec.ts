// A signed-in customer does not see the visitor's Log In and Register while the page loads them:
// the session hint in <head> (src/lib/session-hint.ts) hides them, their room kept, until the
// account island knows who is there; a visitor, and a browser whose stored token is no longer
// valid, see them.

import type { APIRequestContext, Page } from "@playwright/test";
import {
  openSignedIn,
  registerViaApi,
  tokenViaApi,
  uniqueUser,
  verifyViaApi,
  visibleGreeting,
} from "../fixtures/account.ts";
import { expect, test } from "../fixtures/test.ts";

const logIn = (page: Page) => page.locator('[data-island-slot="account"]').locator('a[href="/login"]');

/**
 * A verified customer's token, with the page's GET /v1/users/me held until `release` is called:
 * the account island waits on that answer, so the page can be looked at while it loads.
 */
async function heldSignIn(page: Page, request: APIRequestContext, prefix: string) {
  const user = uniqueUser(prefix);
  await registerViaApi(request, user);
  await verifyViaApi(request, user);
  const token = await tokenViaApi(request, user);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/v1/users/me**", async (route) => {
    await held;
    await route.continue();
  });
  return { user, token, release };
}

test.describe("on a 1280 px desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });

  test("a signed-in customer never sees Log In while their account loads, then sees the greeting", async ({
    page,
    request,
  }) => {
    const { user, token, release } = await heldSignIn(page, request, "hint");
    const asked = page.waitForRequest("**/v1/users/me**");
    await openSignedIn(page, token, "/profile/usage");
    await expect(page.locator("html")).toHaveAttribute("data-session", "");
    // Before any island ran, and once the island has hydrated and asked for the user.
    await expect(logIn(page)).toHaveCSS("visibility", "hidden");
    await asked;
    await expect(logIn(page)).toBeHidden();
    release();
    await expect(visibleGreeting(page, user.username)).toBeVisible();
    await expect(logIn(page)).toBeHidden();
    await expect(page.locator('[data-island-slot="account"] a[href="/register"]')).toBeHidden();
  });

  test("a stored token that is no longer valid shows Log In once the page knows", async ({ page }) => {
    await openSignedIn(page, "not-a-valid-token", "/plans");
    await expect(page.locator("html")).toHaveAttribute("data-session", "");
    await expect(logIn(page)).toBeVisible();
    await expect(page.locator('[data-island-slot="account"] a[href="/register"]')).toBeVisible();
  });

  test("home's Log In waits for the session too, and becomes Get Bearer Token", async ({ page, request }) => {
    const { token, release } = await heldSignIn(page, request, "hinthome");
    await openSignedIn(page, token, "/");
    await page.waitForRequest("**/v1/users/me**");
    const mainLogIn = page.getByRole("main").locator('a[href="/login"]');
    await expect(mainLogIn).toHaveCSS("visibility", "hidden");
    release();
    await expect(page.getByRole("main").getByRole("button", { name: "Get Bearer Token" })).toBeVisible();
    await expect(mainLogIn).toHaveCount(0);
  });
});

test.describe("on a 390 px phone", () => {
  // The island file the last test refuses on purpose, which the browser reports.
  test.use({
    viewport: { width: 390, height: 844 },
    allowedConsoleErrors: [/Failed to load resource: net::ERR_FAILED \(.*\/_astro\/AccountMenu\./],
  });

  test("the mobile menu keeps Log In hidden while the account loads, then shows the account", async ({
    page,
    request,
  }) => {
    const { token, release } = await heldSignIn(page, request, "hintphone");
    await openSignedIn(page, token, "/plans");
    await page.getByText("Menu", { exact: true }).click();
    const mobile = page.locator('[data-island-slot="account-mobile"]');
    await expect(mobile.locator('a[href="/login"]')).toHaveCSS("visibility", "hidden");
    release();
    await expect(mobile.getByRole("button", { name: "Sign Out" })).toBeVisible();
    await expect(mobile.locator('a[href="/login"]')).toBeHidden();
  });

  test("an account island that never comes shows Log In after 8 s instead of nothing", async ({ page }) => {
    // The island's own file is refused, as after a deploy that removed it: nothing will say who is there.
    await page.route("**/_astro/AccountMenu.*.js", (route) => route.abort());
    await openSignedIn(page, "a-token-whose-island-never-loads", "/plans");
    await page.getByText("Menu", { exact: true }).click();
    const mobileLogIn = page.locator('[data-island-slot="account-mobile"] a[href="/login"]');
    await expect(mobileLogIn).toHaveCSS("visibility", "hidden");
    await expect(mobileLogIn).toBeVisible({ timeout: 15_000 });
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });

  test("a visitor sees Log In and Register in the top bar", async ({ page }) => {
    await page.goto("/plans");
    await expect(page.locator("html")).not.toHaveAttribute("data-session", "");
    await expect(logIn(page)).toBeVisible();
    await expect(page.locator('[data-island-slot="account"] a[href="/register"]')).toBeVisible();
  });
});
