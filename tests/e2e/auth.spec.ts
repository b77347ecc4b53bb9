// Account journeys in the browser against the real API: register, verify, log in, the top bar,
// the bearer token, password reset, the route guard and the session rules. Every page state a
// journey visits is swept with axe; any console error fails the test.
import { VALIDATION } from "../../contract/messages.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { TOKEN_TEXT } from "../../src/lib/token-text.ts";
import { ERROR_TEXT, TOAST, UI_TEXT } from "../../src/lib/ui-text.ts";
import { VERIFY_EMAIL_TEXT } from "../../src/lib/verify-email-text.ts";
import {
  createVerifiedUser,
  openSignedIn,
  portalPath,
  readMail,
  registerViaApi,
  tokenViaApi,
  uniqueUser,
  visibleGreeting,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { BAD_REQUEST_CONSOLE_ERROR } from "../fixtures/pages.ts";
import { anyOf, expect, test } from "../fixtures/test.ts";

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** Chromium's console note for the API's 403 to a login with an unverified e-mail address. */
const FORBIDDEN_CONSOLE_ERROR = /Failed to load resource: the server responded with a status of 403/;
const fakeJwt = (payload: unknown) => `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(payload)}.sig`;

async function fillLogin(page: import("@playwright/test").Page, username: string, password: string) {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
}

test.describe("account journeys", () => {
  test.use({ allowedConsoleErrors: [anyOf(BAD_REQUEST_CONSOLE_ERROR, FORBIDDEN_CONSOLE_ERROR)] });
  // A journey visits many pages and sweeps each with axe: more than the default 30 s on 2 cores.
  test.describe.configure({ timeout: 120_000 });

  test("a visitor registers, verifies the e-mail, logs in, sees the top bar and copies the bearer token", async ({
    page,
    context,
    request,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.setViewportSize({ width: 1280, height: 900 });
    const user = uniqueUser("journey");

    await page.goto("/register");
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByLabel("Confirm password").fill(user.password);
    await page.getByRole("button", { name: UI_TEXT.register }).click();
    await expect(page).toHaveURL(/\/login\?registered$/);
    await expect(page.getByText(TOAST.registered)).toBeVisible();
    // The spec's toast says "registered"; the page says what comes next, with a way to resend.
    const inbox = page.locator("[data-check-inbox]");
    await expect(inbox).toContainText(UI_TEXT.checkInbox);
    await expect(inbox.getByRole("link", { name: UI_TEXT.resendVerification })).toHaveAttribute(
      "href",
      "/resend-email-verification",
    );
    expect(await axeViolations(page)).toEqual([]);
    // Logging in before verifying swaps the notice for the refusal's hint, which links to a resend too.
    await fillLogin(page, user.username, user.password);
    await expect(page.locator("[data-email-not-verified]")).toBeVisible();
    await expect(inbox).toHaveCount(0);

    const mail = await readMail(request, user.email, /verif/i);
    await page.goto(portalPath(mail, "/verify-email/"));
    await expect(page.getByText(VERIFY_EMAIL_TEXT.success)).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("link", { name: VERIFY_EMAIL_TEXT.loginLink, exact: true }).click();

    await expect(page).toHaveURL(/\/login$/);
    await fillLogin(page, user.username, user.password);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByText(TOAST.loggedIn)).toBeVisible();
    const greeting = visibleGreeting(page, user.username);
    await expect(greeting).toBeVisible();
    const balance = page.locator("[data-credit-balance]").first();
    await expect(balance).toContainText(/\d/);
    await expect(page.locator(`[data-tip="${UI_TEXT.creditTooltip}"]`).first()).toBeVisible();
    await expect(page.getByRole("link", { name: UI_TEXT.buySubscription }).first()).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    const stored = await page.evaluate(() => ({
      token: localStorage.getItem("x-access-token"),
      flag: localStorage.getItem("isAuthenticated"),
    }));
    expect(stored.flag).toBe("true");
    expect(stored.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    await page.getByRole("button", { name: TOKEN_TEXT.open }).click();
    const dialog = page.getByRole("dialog", { name: TOKEN_TEXT.title });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("textbox")).toHaveValue(stored.token ?? "");
    await expect(dialog.getByRole("textbox")).toHaveAttribute("readonly", "");
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: TOKEN_TEXT.copy }).click();
    await expect(page.getByText(TOAST.copied)).toBeVisible();
    await expect(dialog.getByRole("button", { name: TOKEN_TEXT.copied })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(stored.token);
    // The copied indicator resets after 2 s.
    await expect(dialog.getByRole("button", { name: TOKEN_TEXT.copy })).toBeVisible({ timeout: 4000 });
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();

    // The account menu: My Account and Sign Out.
    await greeting.click();
    await expect(page.getByRole("link", { name: UI_TEXT.myAccount }).first()).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    // Sign Out ends with a page load of / (the journey is on / already): wait for that load, or
    // the page's script context could go away under the evaluate below.
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: UI_TEXT.signOut }).first().click();
    await reloaded;
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
    expect(
      await page.evaluate(() => [
        localStorage.getItem("x-access-token"),
        localStorage.getItem("isAuthenticated"),
      ]),
    ).toEqual([null, null]);
    // Signed out on the server too: the token copied a moment ago no longer works anywhere.
    const afterwards = await request.get("/v1/users/me", {
      headers: { Authorization: `Bearer ${stored.token}` },
    });
    expect(afterwards.status()).toBe(401);
  });

  test("the mobile menu shows the greeting, balance, My Account and Sign Out", async ({ page, request }) => {
    const user = await createVerifiedUser(request, "mobile");
    await page.setViewportSize({ width: 390, height: 844 });
    await openSignedIn(page, await tokenViaApi(request, user));
    await page.getByText("Menu", { exact: true }).click();
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await expect(menu.getByText(UI_TEXT.greeting(user.username))).toBeVisible();
    await expect(menu.locator("[data-credit-balance]")).toContainText(/\d/);
    await expect(menu.getByRole("link", { name: UI_TEXT.myAccount })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    // Signing out loads "/" again, the address this page already has: the URL cannot tell the new
    // page from the old, so the menu is opened only once the new page has loaded (on CI the click
    // once landed on the old page and the new one came with the menu closed).
    const reloaded = page.waitForEvent("framenavigated");
    await menu.getByRole("button", { name: UI_TEXT.signOut }).click();
    await reloaded;
    await page.waitForLoadState("load");
    await expect(page).toHaveURL(/\/$/);
    await page.getByText("Menu", { exact: true }).click();
    await expect(menu.getByRole("link", { name: UI_TEXT.logIn })).toBeVisible();
  });

  test("register shows the duplicate e-mail and username messages", async ({ page, request }) => {
    const taken = uniqueUser("taken");
    await registerViaApi(request, taken);

    await page.goto("/register");
    const fresh = uniqueUser("fresh");
    await page.getByLabel("Email", { exact: true }).fill(taken.email);
    await page.getByLabel("Username").fill(fresh.username);
    await page.getByLabel("Password", { exact: true }).fill(fresh.password);
    await page.getByLabel("Confirm password").fill(fresh.password);
    await page.getByRole("button", { name: UI_TEXT.register }).click();
    await expect(page.getByRole("alert").filter({ hasText: ERROR_TEXT.emailExists })).toBeVisible();
    await expect(page.getByLabel("Email", { exact: true })).toHaveAttribute("aria-invalid", "true");
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("Email", { exact: true }).fill(fresh.email);
    await page.getByLabel("Username").fill(taken.username);
    await page.getByRole("button", { name: UI_TEXT.register }).click();
    await expect(page.getByRole("alert").filter({ hasText: ERROR_TEXT.usernameExists })).toBeVisible();
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
    await expect(page).toHaveURL(/\/register$/);
  });

  test("every password rule shows its message at the field, first broken rule first", async ({ page }) => {
    await page.goto("/register");
    await page.getByRole("button", { name: UI_TEXT.register }).click();
    const errorOf = (field: string) => page.locator(`[data-field-error="${field}"]`);
    await expect(errorOf("email")).toHaveText(VALIDATION.emailRequired);
    await expect(errorOf("username")).toHaveText(VALIDATION.usernameRequired);
    await expect(errorOf("password")).toHaveText(VALIDATION.passwordRequired);
    await expect(errorOf("confirmPassword")).toHaveText(VALIDATION.confirmPasswordRequired);
    await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("Email", { exact: true }).fill("not-an-address");
    await expect(errorOf("email")).toHaveText(VALIDATION.emailInvalid);
    await page.getByLabel("Username").fill("a b");
    await expect(errorOf("username")).toHaveText(VALIDATION.usernameInvalid);

    const password = page.getByLabel("Password", { exact: true });
    const rules: [string, string][] = [
      ["Ab1!", VALIDATION.passwordTooShort],
      [`Ab1!${"x".repeat(27)}`, VALIDATION.passwordTooLong],
      ["abcdefg1!", VALIDATION.passwordUppercase],
      ["ABCDEFG1!", VALIDATION.passwordLowercase],
      ["Abcdefgh!", VALIDATION.passwordNumber],
      ["Abcdefgh1", VALIDATION.passwordSpecial],
    ];
    for (const [value, message] of rules) {
      await password.fill(value);
      await expect(errorOf("password"), `password ${JSON.stringify(value)}`).toHaveText(message);
    }
    await password.fill("Abcdefg1!");
    await expect(errorOf("password")).toHaveCount(0);
    await page.getByLabel("Confirm password").fill("Abcdefg1?");
    await expect(errorOf("confirmPassword")).toHaveText(VALIDATION.passwordsMustMatch);
    await page.getByLabel("Confirm password").fill("Abcdefg1!");
    await expect(errorOf("confirmPassword")).toHaveCount(0);
  });

  test("register shows every field's error at once, the password mismatch included", async ({ page }) => {
    await page.goto("/register");
    await page.getByLabel("Email", { exact: true }).fill("not-an-email");
    await page.getByLabel("Password", { exact: true }).fill("abc");
    await page.getByLabel("Confirm password").fill("abd");
    await page.getByRole("button", { name: UI_TEXT.register }).click();
    const errorOf = (field: string) => page.locator(`[data-field-error="${field}"]`);
    await expect(errorOf("email")).toHaveText(VALIDATION.emailInvalid);
    await expect(errorOf("username")).toHaveText(VALIDATION.usernameRequired);
    await expect(errorOf("password")).toHaveText(VALIDATION.passwordTooShort);
    await expect(errorOf("confirmPassword")).toHaveText(VALIDATION.passwordsMustMatch);
    // A username past its length is one message, and the mismatch stays.
    await page.getByLabel("Username").fill("x".repeat(45));
    await expect(errorOf("username")).toHaveText(VALIDATION.usernameInvalid);
    await expect(errorOf("confirmPassword")).toHaveText(VALIDATION.passwordsMustMatch);
  });

  test("the login form shows its field messages and the credentials error", async ({ page }) => {
    await page.goto("/login");
    await page.getByRole("button", { name: UI_TEXT.logIn }).click();
    await expect(page.locator('[data-field-error="username"]')).toHaveText(VALIDATION.usernameRequired);
    await expect(page.locator('[data-field-error="password"]')).toHaveText(VALIDATION.passwordRequired);
    expect(await axeViolations(page)).toEqual([]);
    await fillLogin(page, "nobody-here", "Wrong!pass1");
    await expect(
      page.getByRole("alert").filter({ hasText: ERROR_TEXT.loginFailedCredentials }),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
  });

  test.describe("with an unverified e-mail address", () => {
    test.use({ allowedConsoleErrors: [FORBIDDEN_CONSOLE_ERROR] });

    test("logging in before verifying the e-mail says so and links to a new verification mail", async ({
      page,
      request,
    }) => {
      const user = uniqueUser("unverified");
      await registerViaApi(request, user);
      await page.goto("/login");
      await fillLogin(page, user.username, user.password);
      await expect(
        page.getByRole("alert").filter({ hasText: ERROR_TEXT.loginFailedCredentials }),
      ).toBeVisible();
      const hint = page.locator("[data-email-not-verified]");
      await expect(hint).toContainText(UI_TEXT.emailNotVerifiedHint);
      expect(await axeViolations(page)).toEqual([]);
      await hint.getByRole("link").click();
      await expect(page).toHaveURL(/\/resend-email-verification$/);
      await page.getByLabel("Email", { exact: true }).fill(user.email);
      await page.getByRole("button", { name: UI_TEXT.submit }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByText(TOAST.verificationSent)).toBeVisible();
    });
  });

  test("forgot password: the mailed link resets the password, and the new one logs in", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "reset");
    await page.goto("/forgot-password");
    await expect(page.getByPlaceholder(UI_TEXT.forgotPassword.emailPlaceholder)).toBeVisible();
    await page.getByRole("button", { name: UI_TEXT.submit }).click();
    await expect(page.locator('[data-field-error="email"]')).toHaveText(VALIDATION.emailRequired);
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByRole("button", { name: UI_TEXT.submit }).click();
    await expect(page).toHaveURL(/\/$/);

    const mail = await readMail(request, user.email, /reset/i);
    const resetPath = portalPath(mail, "/reset-password/");
    await page.goto(resetPath);
    // Beside the form, what a new password does; the API keys link goes to revoking them all.
    const keysNote = page.locator("[data-reset-keys-note]");
    await expect(keysNote).toBeVisible();
    await expect(keysNote).toContainText("API keys keep working");
    await expect(keysNote.getByRole("link", { name: "API keys" })).toHaveAttribute(
      "href",
      "/profile/api-keys#revoke-all",
    );
    const newPassword = "N3w!password";
    // Both fields' errors at once: the broken rule and the mismatch.
    await page.getByLabel("New password").fill("abc");
    await page.getByLabel("Confirm password").fill("abd");
    await page.getByRole("button", { name: UI_TEXT.submit }).click();
    await expect(page.locator('[data-field-error="password"]')).toHaveText(VALIDATION.passwordTooShort);
    await expect(page.locator('[data-field-error="confirmPassword"]')).toHaveText(
      VALIDATION.passwordsMustMatch,
    );
    await page.getByLabel("New password").fill(newPassword);
    await page.getByLabel("Confirm password").fill("N3w!passwore");
    await page.getByRole("button", { name: UI_TEXT.submit }).click();
    await expect(page.locator('[data-field-error="confirmPassword"]')).toHaveText(
      VALIDATION.passwordsMustMatch,
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel("Confirm password").fill(newPassword);
    await page.getByRole("button", { name: UI_TEXT.submit }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByText(TOAST.passwordReset)).toBeVisible();

    // The link is single use: opening it again shows the invalid state.
    await page.goto(resetPath);
    await expect(page.getByText(ERROR_TEXT.tokenInvalid)).toBeVisible();

    await page.goto("/login");
    await fillLogin(page, user.username, newPassword);
    await expect(visibleGreeting(page, user.username)).toBeVisible();
  });

  test("invalid and used reset and verification tokens show the invalid state with a way on", async ({
    page,
    request,
  }) => {
    await page.goto("/reset-password/not-a-real-token");
    await expect(page.getByRole("alert").filter({ hasText: ERROR_TEXT.tokenInvalid })).toBeVisible();
    // An invalid link's message stands alone: no note about what a new password would do.
    await expect(page.locator("[data-reset-keys-note]")).toBeHidden();
    await expect(page.getByRole("link", { name: UI_TEXT.resetPassword.resendLink })).toHaveAttribute(
      "href",
      "/forgot-password",
    );
    expect(await axeViolations(page)).toEqual([]);

    await page.goto("/verify-email/not-a-real-token");
    await expect(page.getByRole("alert").filter({ hasText: ERROR_TEXT.tokenInvalid })).toBeVisible();
    await expect(page.getByRole("link", { name: VERIFY_EMAIL_TEXT.resendLink })).toHaveAttribute(
      "href",
      "/resend-email-verification",
    );
    expect(await axeViolations(page)).toEqual([]);

    // A verification link that was already used is no longer valid either.
    const user = uniqueUser("twice");
    await registerViaApi(request, user);
    const verifyPath = portalPath(await readMail(request, user.email, /verif/i), "/verify-email/");
    await page.goto(verifyPath);
    await expect(page.getByText(VERIFY_EMAIL_TEXT.success)).toBeVisible();
    await page.goto(verifyPath);
    await expect(page.getByText(ERROR_TEXT.tokenInvalid)).toBeVisible();
  });

  test("a visitor who opens /profile is sent to / and sees no account", async ({ page }) => {
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
  });

  test("a signed-out visitor's account link (a receipt's invoice) is where the login goes back to", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "back");
    await page.goto("/profile/billing?from=mail#invoices");
    await expect(page).toHaveURL(/\/$/);
    await page.getByRole("link", { name: UI_TEXT.logIn }).first().click();
    await fillLogin(page, user.username, user.password);
    await expect(page).toHaveURL(/\/profile\/billing\?from=mail#invoices$/);
    await expect(page.getByText(TOAST.loggedIn)).toBeVisible();

    // Signing out on that page does not send the next login back to it.
    await visibleGreeting(page, user.username).click();
    await page.getByRole("button", { name: UI_TEXT.signOut }).first().click();
    await expect(page).toHaveURL(/\/$/);
    expect(await page.evaluate(() => localStorage.getItem("originalPath"))).toBeNull();
  });

  test("a refused page left for more than an hour is not where a later login goes", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "stale");
    await page.goto("/profile/billing?from=mail#invoices");
    await expect(page).toHaveURL(/\/$/);
    // The visitor walked away: the next person signs in on this computer two hours later.
    await page.evaluate(() =>
      localStorage.setItem(
        "originalPathSavedAt",
        String(Number(localStorage.getItem("originalPathSavedAt")) - 7_200_000),
      ),
    );
    await page.getByRole("link", { name: UI_TEXT.logIn }).first().click();
    await fillLogin(page, user.username, user.password);
    await expect(page.getByText(TOAST.loggedIn)).toBeVisible();
    await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await page.evaluate(() => localStorage.getItem("originalPath"))).toBeNull();
  });

  test("an expired stored token counts as logged out and is cleared", async ({ page, request }) => {
    const user = await createVerifiedUser(request, "expired");
    const real = await tokenViaApi(request, user);
    const [header, payload] = real.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
    const expired = `${header}.${b64url({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })}.sig`;

    await openSignedIn(page, expired, "/");
    // The session check clears the stored token and flag; the visitor stays on the page.
    await expect
      .poll(() =>
        page.evaluate(() => [
          localStorage.getItem("x-access-token"),
          localStorage.getItem("isAuthenticated"),
        ]),
      )
      .toEqual([null, null]);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
    await expect(page.getByRole("button", { name: TOKEN_TEXT.open })).toHaveCount(0);

    await openSignedIn(page, "garbage-that-is-no-jwt", "/profile");
    await expect(page).toHaveURL(/\/$/);
    await openSignedIn(page, fakeJwt({ sub: "x" }), "/");
    await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
  });

  test("after login an originalPath of another origin is ignored, a path of this site is used", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "origin");
    await page.goto("/login");
    await page.evaluate(() => localStorage.setItem("originalPath", "https://evil.example/steal"));
    await fillLogin(page, user.username, user.password);
    await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await expect(visibleGreeting(page, user.username)).toBeVisible();

    await visibleGreeting(page, user.username).click();
    await page.getByRole("button", { name: UI_TEXT.signOut }).first().click();
    // Signed out once the top bar offers Log In (the page was on / already: the URL says nothing).
    await expect(page.getByRole("link", { name: UI_TEXT.logIn }).first()).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    for (const evil of ["//evil.example", "/\\evil.example", "javascript:alert(1)"]) {
      await page.goto("/login");
      await page.evaluate((p) => localStorage.setItem("originalPath", p), evil);
      await fillLogin(page, user.username, user.password);
      await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await page.evaluate(() => localStorage.clear());
    }

    await page.goto("/login");
    await page.evaluate(() => localStorage.setItem("originalPath", "/profile"));
    await fillLogin(page, user.username, user.password);
    await expect(page).toHaveURL(/\/profile$/);
  });

  test("a logged-in user who opens /login is sent to /", async ({ page, request }) => {
    const user = await createVerifiedUser(request, "again");
    await openSignedIn(page, await tokenViaApi(request, user), "/login");
    await expect(page).toHaveURL(/\/$/);
  });

  test("a FREE user's profile shows the account, N/A for the end date, Buy Plan and no top-ups", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "free");
    await openSignedIn(page, await tokenViaApi(request, user), "/profile");
    await expect(page.getByLabel(PROFILE_TEXT.username)).toHaveValue(user.username);
    await expect(page.getByLabel(PROFILE_TEXT.email)).toHaveValue(user.email);
    await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("FREE");
    await expect(page.getByLabel(PROFILE_TEXT.planEnds)).toHaveValue(PROFILE_TEXT.notAvailable);
    await expect(page.getByLabel(PROFILE_TEXT.tokens)).toHaveValue(/^\d/);
    await expect(page.getByRole("link", { name: PROFILE_TEXT.buyPlan })).toHaveAttribute("href", "/plans");
    await expect(page.getByText(PROFILE_TEXT.topUpTitle)).toHaveCount(0);
    await expect(page.getByRole("button", { name: PROFILE_TEXT.changePlan })).toHaveCount(0);
    await expect(page.getByRole("button", { name: PROFILE_TEXT.cancelSubscription })).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);
  });
});
