// A signed-in customer does not see the visitor's Log In and Register while the page loads them:
// the session hint in <head> (src/lib/session-hint.ts) hides them, their room kept, until the
// account island knows who is there; a visitor, and a browser whose stored token is no longer
// valid, see them.
import {
  openSignedIn,
  registerViaApi,
  tokenViaApi,
  uniqueUser,
  verifyViaApi,
  visibleGreeting,
} from "../fixtures/account.ts";
import { expect, test } from "../fixtures/test.ts";

const logIn = (page: import("@playwright/test").Page) =>
  page.locator('[data-island-slot="account"]').locator('a[href="/login"]');

test.describe("on a 1280 px desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });

  test("a signed-in customer never sees Log In while their account loads, then sees the greeting", async ({
    page,
    request,
  }) => {
    const user = uniqueUser("hint");
    await registerViaApi(request, user);
    await verifyViaApi(request, user);
    const token = await tokenViaApi(request, user);
    // Hold the user's answer until the page has been looked at: the island waits on it.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/v1/users/me**", async (route) => {
      await held;
      await route.continue();
    });
    await openSignedIn(page, token, "/profile/usage");
    await expect(page.locator("html")).toHaveAttribute("data-session", "");
    // Wait until the island has hydrated and asked for the user: the links are still not shown.
    await page.waitForRequest("**/v1/users/me**");
    await expect(logIn(page)).toHaveCSS("visibility", "hidden");
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
    const user = uniqueUser("hinthome");
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
    await openSignedIn(page, token, "/");
    await page.waitForRequest("**/v1/users/me**");
    const mainLogIn = page.getByRole("main").locator('a[href="/login"]');
    await expect(mainLogIn).toHaveCSS("visibility", "hidden");
    release();
    await expect(page.getByRole("main").getByRole("button", { name: "Get Bearer Token" })).toBeVisible();
    await expect(mainLogIn).toHaveCount(0);
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
