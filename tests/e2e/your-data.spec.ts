// The account's data in the browser (ACCOUNT-SECURITY.md, GDPR): "Download my data" saves the
// export as a JSON file; "Delete account" asks for the username, deletes, signs out and goes to /,
// after which the username and address can register again. And the address itself: a new one
// takes over only through the link mailed to it.
import { readFile } from "node:fs/promises";
import { AUDIT_LOG_KEPT } from "../../contract/data-retention.ts";
import { DETAIL } from "../../contract/messages.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { ACCOUNT_DELETION_POINTS } from "../../src/lib/account-deletion-points.ts";
import { CONFIRM_EMAIL_TEXT } from "../../src/lib/confirm-email-text.ts";
import { SECURITY_EVENT_NAMES, SECURITY_TEXT } from "../../src/lib/security-text.ts";
import { ERROR_TEXT } from "../../src/lib/ui-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  joinViaApi,
  openSignedIn,
  portalPath,
  readMail,
  registerViaApi,
  tokenViaApi,
  uniqueUser,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { anyOf, expect, test } from "../fixtures/test.ts";

const T = SECURITY_TEXT.data;

test("a customer downloads their data, then deletes the account; the name is free again", async ({
  page,
  request,
}) => {
  const user = await createVerifiedUser(request, "gdpr");
  const token = await tokenViaApi(request, user);
  await openSignedIn(page, token, "/profile/security");
  const section = page.locator("[data-account-data]");

  const saving = page.waitForEvent("download");
  await section.getByRole("button", { name: T.download }).click();
  const download = await saving;
  expect(download.suggestedFilename()).toMatch(/^account-\d{4}-\d{2}-\d{2}\.json$/);
  const data = JSON.parse(await readFile((await download.path()) ?? "", "utf8")) as {
    account: { username: string; email: string };
    charges: unknown[];
  };
  expect(data.account).toMatchObject({ username: user.username, email: user.email });
  expect(data.charges).toEqual([]);

  // What deleting cannot erase, said before the button (decision 021), as the deletion mail says it.
  const kept = section.locator("[data-audit-log-kept]");
  await kept.getByText(AUDIT_LOG_KEPT.title).click();
  for (const text of [AUDIT_LOG_KEPT.securityEvents, AUDIT_LOG_KEPT.operatorActions, AUDIT_LOG_KEPT.order])
    await expect(kept).toContainText(text);

  // How long invoices and the log are kept: the paragraph right above the button says it.
  await expect(section.getByText(T.deleteBody)).toBeVisible();
  await expect(section.getByText(T.deleteBody)).toContainText("invoices stay on record for 10 years");
  await expect(section.getByText(T.deleteBody)).toContainText("for 13 months to 10 years");

  await section.getByRole("button", { name: T.deleteAction }).click();
  const dialog = page.getByRole("dialog", { name: T.confirmTitle });
  const confirm = dialog.getByRole("button", { name: T.confirm });
  await expect(confirm).toBeDisabled();
  // The dialog says what deleting ends and what is kept, one point a line rather than the page's
  // paragraph, and points to nothing it does not hold. It does not repeat the paragraph's
  // retention periods.
  const points = dialog.locator("[data-deletion-points]");
  await expect(points.locator("p")).toHaveText(ACCOUNT_DELETION_POINTS.lead);
  await expect(points.getByRole("listitem")).toHaveText([...ACCOUNT_DELETION_POINTS.points]);
  await expect(points.getByRole("listitem")).toContainText([
    "Your personal data is erased, except invoices and our security log's entries about you.",
  ]);
  await expect(dialog).not.toContainText(/\d+ (years|months)/);
  await expect(dialog).not.toContainText(T.deleteBody);
  await expect(dialog).not.toContainText(T.seeLogBelow);
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByLabel(T.confirmLabel(user.username)).fill(user.username.toUpperCase());
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(T.confirmLabel(user.username)).fill(user.username);
  await confirm.click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(T.deleted)).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("x-access-token"))).toBeNull();
  const gone = await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${token}` } });
  expect(gone.status()).toBe(401);
  // The same username and address register as a new account.
  await registerViaApi(request, user);
});

test.describe("an owner of a team with members", () => {
  // DELETE /v1/users/me answers 409 with the teams: the console logs the refused call.
  test.use({ allowedConsoleErrors: [/status of 409/] });

  test("is told which organisations to hand over first, each a link to its settings", async ({
    page,
    request,
  }) => {
    const owner = await createVerifiedUser(request, "teamowner");
    const member = await createVerifiedUser(request, "teammate");
    const ownerToken = await tokenViaApi(request, owner);
    const orgId = await createOrgViaApi(request, ownerToken, "Render Crew");
    await joinViaApi(request, ownerToken, orgId, member, "developer");
    await openSignedIn(page, ownerToken, "/profile/security");
    await page.locator("[data-account-data]").getByRole("button", { name: T.deleteAction }).click();
    const dialog = page.getByRole("dialog", { name: T.confirmTitle });
    await dialog.getByLabel(T.confirmLabel(owner.username)).fill(owner.username);
    await dialog.getByRole("button", { name: T.confirm }).click();

    const refusal = dialog.locator("[data-teams-first]");
    await expect(refusal).toContainText(ORG_DETAIL.transferFirst);
    await expect(refusal).toContainText(T.teamsFirst);
    expect(await axeViolations(page)).toEqual([]);
    // Still signed in, the account still there.
    expect(
      (await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${ownerToken}` } })).status(),
    ).toBe(200);
    await refusal.getByRole("link", { name: "Render Crew" }).click();
    await expect(page).toHaveURL(/\/org\/settings$/);
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBe(orgId);
  });
});

test.describe("changing the e-mail address", () => {
  // An address in use answers 409, the journey cuts the confirm call off once, and a cancelled
  // change's link answers 400: Chromium notes each in the console.
  test.use({ allowedConsoleErrors: [anyOf(/status of 409/, /net::ERR_FAILED/, /status of 400/)] });

  test("a new e-mail address takes over through its link; the old address hears of it", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "mail");
    await openSignedIn(page, await tokenViaApi(request, user), "/profile/security");
    const E = SECURITY_TEXT.email;
    const section = page.locator("[data-email-change]");
    await expect(section.locator("[data-current-email]")).toHaveText(user.email);
    // Another account's address: refused at the field in the words registering uses.
    const other = await createVerifiedUser(request, "taken");
    await section.getByLabel(E.label).fill(other.email);
    await section.getByRole("button", { name: E.submit }).click();
    await expect(section.locator('[data-field-error="email"]')).toHaveText(ERROR_TEXT.emailExists);
    const newAddress = `new-${user.email}`;
    await section.getByLabel(E.label).fill(newAddress);
    await section.getByRole("button", { name: E.submit }).click();
    await expect(page.getByText(DETAIL.emailChangeSent)).toBeVisible();
    // The section shows the change waiting for its link at once.
    const pending = section.locator("[data-pending-email]");
    await expect(pending.locator("[data-pending-address]")).toHaveText(newAddress);
    // Nothing changes until the link is followed.
    await page.reload();
    await expect(section.locator("[data-current-email]")).toHaveText(user.email);
    await expect(pending.locator("[data-pending-address]")).toHaveText(newAddress);

    const link = await readMail(request, newAddress, /Confirm your new/);
    // The first try gets no answer: the page says the link still works, and trying again follows it.
    await page.route("**/v1/user/confirm-email", (route) => route.abort(), { times: 1 });
    await page.goto(portalPath(link, "/confirm-email/"));
    const retry = page.locator("[data-confirm-email-retry]");
    await expect(retry).toContainText(CONFIRM_EMAIL_TEXT.failed);
    await retry.getByRole("button", { name: CONFIRM_EMAIL_TEXT.retry }).click();
    await expect(page.locator("[data-confirm-email-success]")).toContainText(DETAIL.emailChanged);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("link", { name: SECURITY_TEXT.confirmEmail.profileLink }).click();
    await expect(section.locator("[data-current-email]")).toHaveText(newAddress);
    const told = await readMail(request, user.email, /e-mail address was changed/);
    // With the way back: a link of its own, marked so that the page asks before it acts.
    expect(portalPath(told, "/confirm-email/")).toMatch(/^\/confirm-email\/[\w-]{43}\?back=1$/);
  });

  test("a change waiting for its link is shown and cancelled; its link then does nothing", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "oops");
    await openSignedIn(page, await tokenViaApi(request, user), "/profile/security");
    const E = SECURITY_TEXT.email;
    const section = page.locator("[data-email-change]");
    const pending = section.locator("[data-pending-email]");
    await expect(section.locator("[data-current-email]")).toHaveText(user.email);
    await expect(pending).toHaveCount(0);
    const typo = `typo-${user.email}`;
    await section.getByLabel(E.label).fill(typo);
    await section.getByRole("button", { name: E.submit }).click();
    await expect(pending).toContainText(`${E.pending}: ${typo}`);
    // The link's expiry, on the visitor's clock.
    await expect(pending).toContainText(/valid until \d{4}-\d\d-\d\d \d\d:\d\d/);
    expect(await axeViolations(page)).toEqual([]);

    await pending.getByRole("button", { name: E.cancel }).click();
    await expect(page.getByText(DETAIL.emailChangeCancelled)).toBeVisible();
    await expect(pending).toHaveCount(0);
    await expect(page.locator("[data-security-events]")).toContainText(
      SECURITY_EVENT_NAMES["email.change_cancelled"] ?? "",
    );
    await page.reload();
    await expect(section.locator("[data-current-email]")).toHaveText(user.email);
    await expect(pending).toHaveCount(0);

    const link = await readMail(request, typo, /Confirm your new/);
    await page.goto(portalPath(link, "/confirm-email/"));
    await expect(page.locator("[data-token-invalid]")).toContainText(ERROR_TEXT.tokenInvalid);
  });

  test("a link to an address another account took meanwhile says so, and nothing changes", async ({
    page,
    request,
  }) => {
    const user = await createVerifiedUser(request, "late");
    const token = await tokenViaApi(request, user);
    const wanted = `wanted-${user.email}`;
    const asked = await request.post("/v1/users/me/email", {
      headers: { Authorization: `Bearer ${token}` },
      data: { email: wanted },
    });
    expect(asked.status()).toBe(202);
    const link = await readMail(request, wanted, /Confirm your new/);
    await registerViaApi(request, { ...uniqueUser("quick"), email: wanted });
    await page.goto(portalPath(link, "/confirm-email/"));
    await expect(page.locator("[data-confirm-email-taken]")).toContainText(CONFIRM_EMAIL_TEXT.taken);
    const me = await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { email: string }).email).toBe(user.email);
  });
});
