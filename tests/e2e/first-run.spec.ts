// A newcomer's first run as `npm start` sets it up: PORTAL_URL is http://localhost:PORT (mail links
// and the checkout's return are built from it) while the log also names the 127.0.0.1 address. The
// browser keeps the session per origin, so a page opened on 127.0.0.1 is sent to localhost, and a
// mailed link then opens in the same signed-in session (issue 31, item 1).
import { TOAST, UI_TEXT } from "../../src/lib/ui-text.ts";
import { VERIFY_EMAIL_TEXT } from "../../src/lib/verify-email-text.ts";
import { portalPath, readMail, uniqueUser, visibleGreeting } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { ownServer } from "../fixtures/own-server.ts";
import { expect, test } from "../fixtures/test.ts";

test.describe.configure({ timeout: 120_000 });

const server = ownServer("first-run", { portalOnLocalhost: true });
/** Chromium's console note for the API's 403 to a login with an unverified e-mail address. */
const FORBIDDEN = /Failed to load resource: the server responded with a status of 403/;
test.use({ allowedConsoleErrors: [FORBIDDEN] });

test("a page opened on 127.0.0.1 moves to PORTAL_URL's origin, and the mailed link opens signed in", async ({
  browser,
  playwright,
}) => {
  const loopback = server().baseUrl;
  const portal = loopback.replace("127.0.0.1", "localhost");
  const context = await browser.newContext();
  const page = await context.newPage();
  const api = await playwright.request.newContext({ baseURL: loopback });

  await page.goto(`${loopback}/register?from=log`);
  await expect(page).toHaveURL(`${portal}/register?from=log`);

  const user = uniqueUser("first-run");
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByLabel("Confirm password").fill(user.password);
  await page.getByRole("button", { name: UI_TEXT.register }).click();

  // Item 8: the login page says a verification mail is waiting, and offers to send another.
  await expect(page).toHaveURL(`${portal}/login?registered`);
  await expect(page.getByText(TOAST.registered)).toBeVisible();
  await expect(page.locator("[data-check-inbox]")).toContainText(UI_TEXT.checkInbox);
  expect(await axeViolations(page)).toEqual([]);

  const mail = await readMail(api, user.email, /verif/i);
  const link = mail.links.find((l) => l.includes("/verify-email/")) ?? "";
  expect(new URL(link).origin, "mail links use PORTAL_URL").toBe(portal);
  await page.goto(`${portal}${portalPath(mail, "/verify-email/")}`);
  await expect(page.getByText(VERIFY_EMAIL_TEXT.success)).toBeVisible();

  // Logged in on the address the log names: the session is localhost's, where PORTAL_URL's links land.
  await page.goto(`${loopback}/login`);
  await expect(page).toHaveURL(`${portal}/login`);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
  await expect(page).toHaveURL(`${portal}/`);
  await page.goto(`${portal}/profile`);
  await expect(visibleGreeting(page, user.username)).toBeVisible();
  await context.close();
});
