// Issue 30 in the browser, on a server of its own (its clock moves, which would age every other
// journey's session on the shared server): on an account with two-factor sign-in on, the "Confirm
// your password" dialog asks for a code beside the password and says a wrong one at the code's
// field, for a new API key and for a password change; and the old address's way back ends the
// reset link mailed to the new address, then /profile/security lists what was added meanwhile.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { DETAIL, VALIDATION } from "../../contract/messages.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { CONFIRM_EMAIL_TEXT } from "../../src/lib/confirm-email-text.ts";
import { ORG_PAGE_TEXT } from "../../src/lib/org-text.ts";
import { REAUTH_TEXT } from "../../src/lib/reauth-text.ts";
import { SECURITY_TEXT } from "../../src/lib/security-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  openSignedIn,
  portalPath,
  readMail,
  tokenViaApi,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { ownServer } from "../fixtures/own-server.ts";
import { ROOT } from "../fixtures/server-process.ts";
import { expect, test } from "../fixtures/test.ts";
import { appCode, turnOnTwoFactorViaApi } from "../fixtures/two-factor.ts";

test.describe.configure({ timeout: 120_000 });

const R = SECURITY_TEXT.revertReview;
const server = ownServer("full-reauth");
/** Where the journeys leave their screenshots of the changed dialog and notice, to be looked at. */
const SHOTS = join(ROOT, "test-results", "full-reauth");

test.beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

/** Screenshots at 390 px in the dark theme and 1280 px in the light one, each checked by axe. */
async function shoot(page: Page, name: string) {
  for (const [width, colorScheme] of [
    [390, "dark"],
    [1280, "light"],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}-${colorScheme}.png`), fullPage: true });
  }
}

test("with two-factor on, the dialog asks for the code beside the password, and says a wrong one there", async ({
  browser,
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: server().baseUrl });
  const context = await browser.newContext({ baseURL: server().baseUrl });
  const page = await context.newPage();
  const user = await createVerifiedUser(api, "code");
  const { secret, recoveryCodes, token } = await turnOnTwoFactorViaApi(api, await tokenViaApi(api, user));
  // 11 minutes pass on the server's clock, and the app's codes are still real time's (as an
  // authenticator's are): the next step's, since the confirmation used this one.
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(advanced.status(), await advanced.text()).toBe(200);
  const serverCode = () => appCode(secret, 1);
  await openSignedIn(page, token, "/profile/api-keys");
  await page.getByRole("button", { name: API_KEYS_TEXT.create }).click();
  const form = page.getByRole("dialog", { name: API_KEYS_TEXT.createTitle });
  await form.getByLabel(API_KEYS_TEXT.name).fill("Render server");
  await form.getByRole("button", { name: API_KEYS_TEXT.create }).click();

  const confirm = page.getByRole("dialog", { name: REAUTH_TEXT.title });
  await expect(confirm.getByText(REAUTH_TEXT.bodyWithCode)).toBeVisible();
  const password = confirm.getByLabel(REAUTH_TEXT.password);
  const code = confirm.getByLabel(REAUTH_TEXT.code);
  await expect(code).toHaveAttribute("autocomplete", "one-time-code");
  // The password alone: the code is asked for at its field, nothing is sent.
  await password.fill(user.password);
  await confirm.getByRole("button", { name: REAUTH_TEXT.confirm }).click();
  await expect(confirm.locator('[data-field-error="code"]')).toHaveText(VALIDATION.codeRequired);
  // A wrong code: said beside the code, not the password.
  await code.fill("000000");
  await code.press("Enter");
  await expect(confirm.locator('[data-field-error="code"]')).toHaveText(DETAIL.incorrectCode);
  await expect(code).toHaveAttribute("aria-invalid", "true");
  await expect(password).not.toHaveAttribute("aria-invalid", "true");
  await shoot(page, "reauth-code-dialog");

  // The right code: the key is made without another click.
  await code.fill(serverCode());
  await confirm.getByRole("button", { name: REAUTH_TEXT.confirm }).click();
  await expect(page.getByRole("dialog", { name: API_KEYS_TEXT.createdTitle })).toBeVisible();
  await expect(confirm).toBeHidden();

  // 11 more minutes: the current password alone no longer changes it; the dialog asks for a code.
  const later = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(later.status(), await later.text()).toBe(200);
  await page.goto("/profile/security");
  const P = SECURITY_TEXT.password;
  const change = page.locator("[data-password-change]");
  await change.getByLabel(P.current).fill(user.password);
  await change.getByLabel(P.next, { exact: true }).fill("Brand#New12345");
  await change.getByLabel(P.confirm).fill("Brand#New12345");
  await change.getByRole("button", { name: P.submit }).click();
  await expect(confirm.getByLabel(REAUTH_TEXT.code)).toBeVisible();
  await confirm.getByLabel(REAUTH_TEXT.password).fill(user.password);
  // Each of the app's codes works once, and the next one is 30 s away: a recovery code does too.
  await confirm.getByLabel(REAUTH_TEXT.code).fill(recoveryCodes[0] ?? "");
  await confirm.getByRole("button", { name: REAUTH_TEXT.confirm }).click();
  await expect(page.getByText(P.done)).toBeVisible();
  await context.close();
  await api.dispose();
});

test("the way back refuses the reset link mailed to the new address; the security page lists what was added", async ({
  browser,
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: server().baseUrl });
  const context = await browser.newContext({ baseURL: server().baseUrl });
  const page = await context.newPage();
  const user = await createVerifiedUser(api, "back");
  // The stolen session: keys for later (one in the personal organisation, one in a team, whose
  // credits it spends), the address moved, a reset asked for at the new address.
  const stolenToken = await tokenViaApi(api, user);
  const stolen = { Authorization: `Bearer ${stolenToken}` };
  const key = await api.post("/v1/api-keys", { headers: stolen, data: { name: "Backdoor" } });
  expect(key.status(), await key.text()).toBe(201);
  const teamName = `Back team ${Date.now()}`;
  const team = await createOrgViaApi(api, stolenToken, teamName);
  const teamKey = await api.post("/v1/api-keys", {
    headers: { ...stolen, "X-Organization": team },
    data: { name: "Team backdoor" },
  });
  expect(teamKey.status(), await teamKey.text()).toBe(201);
  const theirs = `them-${user.email}`;
  const moved = await api.post("/v1/users/me/email", { headers: stolen, data: { email: theirs } });
  expect(moved.status(), await moved.text()).toBe(202);
  const link = portalPath(await readMail(api, theirs, /Confirm your new/), "/confirm-email/");
  const followed = await api.post("/v1/user/confirm-email", { data: { token: link.split("/").at(-1) } });
  expect(followed.status(), await followed.text()).toBe(200);
  const asked = await api.post("/v1/user/password-reset-request", { data: { email: theirs } });
  expect(asked.status()).toBe(200);
  const reset = portalPath(await readMail(api, theirs, /Reset your/), "/reset-password/");

  // The owner follows the way back from the old address.
  const told = portalPath(await readMail(api, user.email, /e-mail address was changed/), "/confirm-email/");
  const ask = page.locator("[data-confirm-email-back]");
  // A link that lost its `?back=1` (or one mailed before it had one) is followed on load; the server
  // tells the way back apart and does nothing without the owner's click, so the page asks.
  await page.goto(told.replace("?back=1", ""));
  await expect(ask).toContainText(CONFIRM_EMAIL_TEXT.backIntro);
  expect((await api.get("/v1/users/me", { headers: stolen })).status()).toBe(200);
  // Opening the link as mailed changes nothing either (a mail scanner may open it): the page asks first.
  await page.goto(told);
  await expect(ask).toContainText(CONFIRM_EMAIL_TEXT.backIntro);
  expect(await axeViolations(page)).toEqual([]);
  const still = await api.get("/v1/users/me", { headers: stolen });
  expect(still.status()).toBe(200);
  await ask.getByRole("button", { name: CONFIRM_EMAIL_TEXT.backConfirm }).click();
  await expect(page.locator("[data-confirm-email-success]")).toContainText(DETAIL.emailChangeReverted);
  expect(await axeViolations(page)).toEqual([]);
  // The reset link mailed to the other address no longer works.
  await page.goto(reset);
  await expect(page.locator("[data-token-invalid]")).toBeVisible();

  // The password ended with the way back (whoever moved the address may know it): the owner sets
  // it again through a reset link mailed to the address that came back.
  const stale = await api.post("/v1/token", { form: { username: user.username, password: user.password } });
  expect(stale.status()).toBe(400);
  expect((await api.post("/v1/user/password-reset-request", { data: { email: user.email } })).status()).toBe(
    200,
  );
  // The other address holds the owner's as a part ("them-…"): wait for the newest reset, not theirs.
  let ownReset = reset;
  await expect
    .poll(async () => {
      ownReset = portalPath(await readMail(api, user.email, /Reset your/), "/reset-password/");
      return ownReset;
    })
    .not.toBe(reset);
  const set = await api.post("/v1/user/password-reset", {
    data: { token: ownReset.split("/").at(-1), password: user.password },
  });
  expect(set.status(), await set.text()).toBe(200);

  // Signed in again, the security page lists the keys made meanwhile, each with its organisation
  // and a way to revoke it there, whichever organisation the page has chosen (the personal one).
  await openSignedIn(page, await tokenViaApi(api, user), "/profile/security");
  const notice = page.locator("[data-revert-review]");
  await expect(notice.getByRole("heading", { name: R.title })).toBeVisible();
  const item = notice.locator('[data-added^="Backdoor"]');
  await expect(item).toContainText(R.organisation(ORG_DETAIL.personalName));
  const teamItem = notice.locator('[data-added^="Team backdoor"]');
  await expect(teamItem).toContainText(R.organisation(teamName));
  await shoot(page, "revert-review");
  for (const listed of [teamItem, item]) {
    await listed.getByRole("button", { name: R.revokeKey }).click();
    await page
      .getByRole("dialog", { name: R.revokeTitle })
      .getByRole("button", { name: R.revokeKey })
      .click();
    await expect(listed).toBeHidden();
  }
  await expect(page.getByText(R.revoked).first()).toBeVisible();
  await expect(notice).toBeHidden();
  const owner = { Authorization: `Bearer ${await tokenViaApi(api, user)}` };
  for (const headers of [owner, { ...owner, "X-Organization": team }]) {
    const keys = await api.get("/v1/api-keys", { headers });
    expect(((await keys.json()) as { data: unknown[] }).data).toEqual([]);
  }
  await context.close();
  await api.dispose();
});

test("inviting a billing member after 10 minutes asks for the password, then sends the invitation", async ({
  browser,
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: server().baseUrl });
  const page = await (await browser.newContext({ baseURL: server().baseUrl })).newPage();
  const owner = await createVerifiedUser(api, "inviter");
  const token = await tokenViaApi(api, owner);
  const orgId = await createOrgViaApi(api, token, `Billing team ${Date.now()}`);
  // Making a billing member takes a sign-in of the last 10 minutes (ORGANISATIONS.md).
  const advanced = await api.post("/_dev/billing/advance", { data: { days: 11 / 1440 } });
  expect(advanced.status(), await advanced.text()).toBe(200);
  await page.goto("/robots.txt");
  await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
  await openSignedIn(page, token, "/org/members");

  const invite = page.locator("[data-invite-form]");
  const email = `billing-${Date.now()}@example.com`;
  await invite.getByLabel(ORG_PAGE_TEXT.inviteEmail).fill(email);
  await invite.getByLabel(ORG_PAGE_TEXT.inviteRole).selectOption("billing");
  await invite.getByRole("button", { name: ORG_PAGE_TEXT.sendInvite }).click();
  const confirm = page.getByRole("dialog", { name: REAUTH_TEXT.title });
  await confirm.getByLabel(REAUTH_TEXT.password).fill(owner.password);
  await confirm.getByRole("button", { name: REAUTH_TEXT.confirm }).click();
  await expect(page.getByText(ORG_PAGE_TEXT.invited(email)).first()).toBeVisible();
  await expect(confirm).toBeHidden();
  await expect(page.locator(`[data-invitation="${email}"]`)).toBeVisible();
});
