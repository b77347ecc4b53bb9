// Organisations in the portal (ORGANISATIONS.md "Pages"), against the real server: members' roles,
// caps and removal, the settings (rename, transfer, delete with what is forfeited), and a team's
// whole journey from creation to a VAT top-up.
import type { APIRequestContext, Page } from "@playwright/test";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { BILLING_TEXT } from "../../src/lib/billing-text.ts";
import { INVITATION_TEXT } from "../../src/lib/invitation-text.ts";
import { ORG_PAGE_TEXT } from "../../src/lib/org-text.ts";
import { nextBerlinMonthStart } from "../../src/lib/org-view.ts";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { USAGE_TEXT } from "../../src/lib/usage-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  invitationPath,
  inviteViaApi,
  joinViaApi,
  openSignedIn,
  tokenViaApi,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { FRENCH_BUSINESS, payOnCheckout } from "../fixtures/checkout.ts";
import {
  accountArea,
  logInOnForm,
  newPage,
  openAsNewDeveloper,
  openAsNewOwner,
  orgName,
} from "../fixtures/organisations.ts";
import { makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

const T = ORG_PAGE_TEXT;

/** A new owner's organisation with one member of `role`, joined by invitation. */
async function teamOfTwo(
  request: APIRequestContext,
  label: string,
  memberName: string,
  role: "manager" | "developer",
) {
  const owner = await createVerifiedUser(request, "owner");
  const member = await createVerifiedUser(request, memberName);
  const ownerToken = await tokenViaApi(request, owner);
  const orgId = await createOrgViaApi(request, ownerToken, orgName(label));
  const memberToken = await joinViaApi(request, ownerToken, orgId, member, role);
  return { owner, ownerToken, member, memberToken, orgId };
}

/** /org/members as the team's owner, with the team chosen. */
async function openMembersAsOwner(page: Page, team: { ownerToken: string; orgId: string }) {
  await page.goto("/robots.txt");
  await page.evaluate((id) => localStorage.setItem("x-organization", id), team.orgId);
  await openSignedIn(page, team.ownerToken, "/org/members");
}

test.describe("members and settings", () => {
  test("the owner caps a developer and removes them; the dialogs name the keys that stop", async ({
    page,
    request,
  }) => {
    const team = await teamOfTwo(request, "Caps", "dev", "developer");
    const { member: developer, orgId } = team;
    const key = await request.post("/v1/api-keys", {
      headers: { Authorization: `Bearer ${team.memberToken}`, "X-Organization": orgId },
      data: { name: "render farm" },
    });
    expect(key.status(), await key.text()).toBe(201);

    await openMembersAsOwner(page, team);
    const row = page.locator(`[data-member="${developer.username}"]`);
    await expect(row).toContainText(T.noCap);

    // A cap: a bad number is said beside the field, a good one is saved and shown.
    await row.getByRole("button", { name: `${T.edit} ${developer.username}` }).click();
    const dialog = page.getByRole("dialog", { name: T.editTitle(developer.username) });
    await dialog.getByLabel(T.cap).fill("-5");
    await dialog.getByRole("button", { name: T.save }).click();
    await expect(dialog.locator('[data-field-error="monthly_credit_cap"]')).toBeVisible();
    await dialog.getByLabel(T.cap).fill("5");
    // Billing has no API keys: the dialog warns before the developer's key would stop.
    await dialog.getByRole("radio", { name: /Billing/ }).check();
    await expect(dialog.locator("[data-keys-warning]")).toBeVisible();
    await dialog.getByRole("radio", { name: /Developer/ }).check();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: T.save }).click();
    await expect(row).toContainText("5 credits");

    // Removal: the dialog says which keys stop, and the result names the ones that did.
    await row.getByRole("button", { name: `${T.remove} ${developer.username}` }).click();
    const confirm = page.getByRole("dialog", { name: T.removeTitle(developer.username) });
    await expect(confirm.locator("[data-removal-keys=ready]")).toBeVisible();
    await expect(confirm).toContainText("render farm");
    await confirm.getByRole("button", { name: T.confirmRemove }).click();
    await expect(page.locator("[data-removal-result]")).toContainText("render farm");
    await expect(row).toHaveCount(0);
  });

  test("a manager made a developer loses the invitations they sent, and the toast says so", async ({
    page,
    request,
  }) => {
    const team = await teamOfTwo(request, "Demote", "mgr", "manager");
    const manager = team.member;
    const sent = `alt-${manager.username}@example.com`;
    await inviteViaApi(request, team.memberToken, team.orgId, sent, "manager");

    await openMembersAsOwner(page, team);
    await expect(page.locator(`[data-invitation="${sent}"]`)).toBeVisible();
    const row = page.locator(`[data-member="${manager.username}"]`);
    await row.getByRole("button", { name: `${T.edit} ${manager.username}` }).click();
    const dialog = page.getByRole("dialog", { name: T.editTitle(manager.username) });
    await dialog.getByRole("radio", { name: /Developer/ }).check();
    await dialog.getByRole("button", { name: T.save }).click();
    await expect(page.locator(".Toastify__toast", { hasText: T.invitationsRevoked(1) })).toContainText(
      T.saved(manager.username),
    );
    await expect(page.locator(`[data-invitation="${sent}"]`)).toHaveCount(0);
  });

  test.describe("in a browser far from Berlin", () => {
    test.use({ timezoneId: "America/New_York" });

    test("says when the caps' month starts again on the viewer's clock, and that it is theirs", async ({
      page,
      request,
    }) => {
      await openAsNewOwner(page, request, "Month", "/org/members");
      // Midnight on the 1st in Berlin is 18:00 or 17:00 the day before in New York.
      const newYork = new Intl.DateTimeFormat("sv-SE", {
        timeZone: "America/New_York",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
      }).format(nextBerlinMonthStart(new Date()));
      await expect(page.getByText(T.monthNote(newYork))).toBeVisible();
      await expect(page.getByText(`starts again on ${newYork} (your local time).`)).toBeVisible();
    });
  });

  test.describe("billing, for a role without it", () => {
    test("a developer has no Billing link, and the billing page says whose it is", async ({
      page,
      request,
    }) => {
      await openAsNewDeveloper(page, request, "NoBill", "/profile");
      await expect(page.locator("[data-profile]")).toBeVisible();
      // Neither the account menus (desktop and phone) nor the profile's links offer it: once both
      // menus and the profile are there (each has a Usage link), none is a Billing link.
      await expect(page.locator('a[href="/profile/usage"]')).toHaveCount(3);
      await expect(page.locator('a[href="/profile/billing"]')).toHaveCount(0);
      // The page asks nothing the role would be refused (a 403 would also fail the test's console check).
      const billingCalls: string[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).pathname.startsWith("/v1/billing")) billingCalls.push(r.url());
      });
      await page.goto("/profile/billing");
      await expect(page.locator("[data-billing-forbidden]")).toHaveText(BILLING_TEXT.billingNotForRole);
      expect(billingCalls).toEqual([]);
      await expect(page.getByRole("heading", { name: BILLING_TEXT.historyTitle })).toBeHidden();
      expect(await axeViolations(page)).toEqual([]);
    });
  });

  test("a developer sees names and roles only, and may only leave", async ({ page, request }) => {
    const { owner, developer, name } = await openAsNewDeveloper(page, request, "Leave", "/org/members");
    const ownerRow = page.locator(`[data-member="${owner.username}"]`);
    await expect(ownerRow).toContainText("Owner");
    await expect(ownerRow).not.toContainText(owner.email);
    // A developer's usage is "own only": the others' caps and spending are not theirs to read.
    await expect(ownerRow).not.toContainText(T.columns.spent);
    await expect(ownerRow).not.toContainText(T.columns.cap);
    await expect(page.locator(`[data-member="${developer.username}"]`)).toContainText(T.columns.spent);
    await expect(ownerRow.getByRole("button")).toHaveCount(0);
    await expect(page.locator("[data-invite-form]")).toHaveCount(0);

    await page
      .locator(`[data-member="${developer.username}"]`)
      .getByRole("button", { name: T.leave })
      .click();
    await page
      .getByRole("dialog", { name: T.leaveTitle(name) })
      .getByRole("button", { name: T.confirmLeave })
      .click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByText(T.left(name))).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBeNull();
  });

  test("the owner renames, transfers ownership and, as a manager, no longer deletes", async ({
    page,
    request,
  }) => {
    const owner = await createVerifiedUser(request, "owner");
    const manager = await createVerifiedUser(request, "mgr");
    const ownerToken = await tokenViaApi(request, owner);
    const orgId = await createOrgViaApi(request, ownerToken, orgName("Rename"));
    await joinViaApi(request, ownerToken, orgId, manager, "manager");
    const renamed = orgName("Renamed");

    await page.goto("/robots.txt");
    await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
    await openSignedIn(page, ownerToken, "/org/settings");
    const rename = page.locator("[data-rename-form]");
    await rename.getByLabel(T.createName).fill("a");
    await rename.getByRole("button", { name: T.rename }).click();
    await expect(rename.locator('[data-field-error="name"]')).toHaveText("Use 2 to 60 characters");
    await rename.getByLabel(T.createName).fill(renamed);
    await rename.getByRole("button", { name: T.rename }).click();
    await expect(accountArea(page).locator("[data-org-name]")).toHaveText(renamed);
    // The sweep after the toast has come: react-toastify loads with the first toast, and on a busy
    // machine its entrance began after the sweep had waited for the page's animations, so axe
    // measured the toast mid-fade (a contrast failure in CI).
    await expect(page.locator(".Toastify__toast", { hasText: T.renamed })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    const transfer = page.locator("[data-transfer]");
    await transfer.getByLabel(T.transferTo).selectOption({ label: `${manager.username} (Manager)` });
    await transfer.getByRole("button", { name: T.transfer }).click();
    await page
      .getByRole("dialog", { name: T.transferConfirmTitle(manager.username) })
      .getByRole("button", { name: T.transfer })
      .click();
    await expect(page.getByText(T.transferred(manager.username))).toBeVisible();
    // Now a manager: rename stays, transfer and delete are an owner's.
    await expect(page.locator("[data-rename-form]")).toBeVisible();
    await expect(page.locator("[data-transfer]")).toHaveCount(0);
    await expect(page.locator("[data-delete-org]")).toHaveCount(0);
  });
});

test.describe("deleting an organisation", () => {
  // Chromium's console note for the server's 409 that says what would be lost.
  test.use({ allowedConsoleErrors: [/status of 409/] });

  test("deletes an organisation with nothing to lose at the first Delete", async ({ page, request }) => {
    const { ownerToken, orgId, name } = await openAsNewOwner(page, request, "Delete", "/org/settings");
    await page.locator("[data-delete-org]").getByRole("button", { name: T.delete }).click();
    const dialog = page.getByRole("dialog", { name: T.deleteConfirmTitle(name) });
    // No credits, no paid days: nothing to ask about a second time.
    await dialog.getByRole("button", { name: T.confirmDelete }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByText(T.deleted(name))).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBeNull();
    const gone = await request.get(`/v1/orgs/${orgId}`, {
      headers: { Authorization: `Bearer ${ownerToken}` },
    });
    expect(gone.status()).toBe(404);
  });

  test("says which credits would be lost and deletes only at the second answer", async ({
    page,
    request,
  }) => {
    const { ownerToken, orgId, name } = await openAsNewOwner(page, request, "Forfeit", "/org/settings");
    const admin = await createVerifiedUser(request, "ffadm");
    const staff = { Authorization: `Bearer ${await staffViaCli(request, admin, "admin")}` };
    const grant = async (amount: number, key: string) => {
      const granted = await request.post(`/v1/admin/orgs/${orgId}/credits`, {
        headers: staff,
        data: { amount, reason: "Test credits to lose", idempotency_key: `${key}-${orgId}` },
      });
      expect(granted.status(), await granted.text()).toBe(201);
    };
    await grant(120, "forfeit");
    await page.locator("[data-delete-org]").getByRole("button", { name: T.delete }).click();
    const dialog = page.getByRole("dialog", { name: T.deleteConfirmTitle(name) });
    await dialog.getByRole("button", { name: T.confirmDelete }).click();
    await expect(dialog.locator("[data-forfeit]")).toHaveText(T.forfeit("120", 0));
    // Both answers fit inside the dialog's box, on a phone and on a desktop screen.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      const box = await dialog.locator(".modal-box").boundingBox();
      for (const name of [T.keepOrg, T.confirmForfeit]) {
        const button = await dialog.getByRole("button", { name }).boundingBox();
        expect(box && button, name).toBeTruthy();
        if (!box || !button) continue;
        expect(button.x, `${name} at ${width} px`).toBeGreaterThanOrEqual(box.x);
        expect(button.x + button.width, `${name} at ${width} px`).toBeLessThanOrEqual(box.x + box.width);
      }
      await page.screenshot({ path: test.info().outputPath(`delete-org-forfeit-${width}.png`) });
    }
    const stillThere = async () =>
      expect(
        (
          await request.get(`/v1/orgs/${orgId}`, { headers: { Authorization: `Bearer ${ownerToken}` } })
        ).status(),
      ).toBe(200);
    await stillThere();
    // Credits land while the dialog is open: the answer given was for 120, so it asks again.
    await grant(30, "landed");
    await dialog.getByRole("button", { name: T.confirmForfeit }).click();
    await expect(dialog.locator("[data-forfeit]")).toHaveText(`${T.forfeitGrew} ${T.forfeit("150", 0)}`);
    await stillThere();
    await dialog.getByRole("button", { name: T.confirmForfeit }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByText(T.deleted(name))).toBeVisible();
  });
});

test.describe("a team's whole journey", () => {
  // Two checkouts, webhooks and a dozen pages: longer than a single page's journey.
  test.describe.configure({ timeout: 180_000 });
  test.use({ allowedConsoleErrors: [/status of 409/] });

  test("owner creates and pays for an organisation, a developer joins by mail, spends until the cap refuses, the owner reads usage by member, removes them and tops up with a VAT ID", async ({
    page,
    request,
    browser,
  }) => {
    const owner = await createVerifiedUser(request, "owner");
    const developer = await createVerifiedUser(request, "dev");
    const name = orgName("Journey");
    const tokensOnProfile = async () =>
      Number((await page.getByLabel(PROFILE_TEXT.tokens).inputValue()).replaceAll(",", ""));
    const profileUntil = async (check: () => Promise<void>) =>
      expect(async () => {
        await page.goto("/profile");
        await check();
      }).toPass({ timeout: 20_000, intervals: [500, 1000, 2000] });

    // 1. The owner creates the organisation and subscribes it to Tier A as a French business.
    await openSignedIn(page, await tokenViaApi(request, owner), "/profile");
    const create = page.locator("[data-create-org]");
    await create.getByLabel(T.createName).fill(name);
    await create.getByRole("button", { name: T.create }).click();
    await expect(page).toHaveURL(/\/org\/members$/);
    const orgId = (await page.evaluate(() => localStorage.getItem("x-organization"))) ?? "";
    await page.goto("/plans");
    await page
      .locator('[data-plan-card][data-tier="A"]')
      .getByRole("button", { name: /to Tier A/ })
      .click();
    await payOnCheckout(page, "4242 4242 4242 4242", FRENCH_BUSINESS);
    await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
    await profileUntil(async () => {
      await expect(page.getByLabel(PROFILE_TEXT.plan)).toHaveValue("Tier A", { timeout: 2000 });
    });
    const paid = await tokensOnProfile();
    expect(paid).toBeGreaterThanOrEqual(1000);

    // 2. It invites a developer, whose mail leads to the invitation; they log in and accept.
    await page.goto("/org/members");
    const invite = page.locator("[data-invite-form]");
    await invite.getByLabel(T.inviteEmail).fill(developer.email);
    await invite.getByRole("button", { name: T.sendInvite }).click();
    await expect(page.locator(`[data-invitation="${developer.email}"]`)).toBeVisible();
    const devPage = await newPage(browser);
    await devPage.goto(await invitationPath(request, developer.email));
    await devPage.getByRole("button", { name: INVITATION_TEXT.logIn }).click();
    await logInOnForm(devPage, developer);
    await devPage.getByRole("button", { name: INVITATION_TEXT.accept }).click();
    await devPage.getByRole("button", { name: INVITATION_TEXT.switchTo(name) }).click();
    await expect(devPage.locator('[data-profile-field="organization"]')).toHaveValue(name);
    await expect(devPage.locator("[data-profile-org-role]")).toHaveText("Developer");
    // The developer's top bar shows the organisation's balance, not their own 50 free credits.
    await expect(accountArea(devPage).locator("[data-credit-balance]")).toContainText(
      paid.toLocaleString("en-US"),
    );

    // 3. The owner caps the developer at 12 credits a month.
    await page.reload();
    const row = page.locator(`[data-member="${developer.username}"]`);
    await row.getByRole("button", { name: `${T.edit} ${developer.username}` }).click();
    const edit = page.getByRole("dialog", { name: T.editTitle(developer.username) });
    await edit.getByLabel(T.cap).fill("12");
    await edit.getByRole("button", { name: T.save }).click();
    await expect(row).toContainText("12 credits");

    // 4. The developer's key spends comics (5 credits each) until the cap refuses the third.
    const devToken = await devPage.evaluate(() => localStorage.getItem("x-access-token"));
    const key = await request.post("/v1/api-keys", {
      headers: { Authorization: `Bearer ${devToken}`, "X-Organization": orgId },
      data: { name: "Comic renderer" },
    });
    expect(key.status(), await key.text()).toBe(201);
    const keyId = ((await key.json()) as { id: string }).id;
    const service = await makeServiceKey();
    const consume = (n: number) =>
      request.post("/v1/credits/consume", {
        headers: { Authorization: `Bearer ${service}` },
        data: {
          api_key_id: keyId,
          feature: "comic",
          people: "one",
          idempotency_key: `journey-${orgId}-${n}`,
        },
      });
    expect((await consume(1)).status()).toBe(200);
    expect((await consume(2)).status()).toBe(200);
    const refused = await consume(3);
    expect(refused.status()).toBe(402);
    expect(((await refused.json()) as { detail: string }).detail).toBe(ORG_DETAIL.memberCapReached);
    await page.reload();
    await expect(row).toContainText("10 credits");
    // The developer's key card says what bounds it: no limit of its own, and their cap.
    await devPage.goto("/profile/api-keys");
    const card = devPage.locator(`[data-api-key="${keyId}"]`);
    await expect(card).toContainText(`10 credits (${API_KEYS_TEXT.noKeyLimit})`);
    await expect(card).toContainText("10 of 12 credits (all your keys)");
    await expect(card).toContainText(`${API_KEYS_TEXT.columns.madeBy}${API_KEYS_TEXT.madeByYou}`);
    if (process.env.SCREENSHOT_DIR) {
      await devPage.setViewportSize({ width: 390, height: 844 });
      await devPage.screenshot({
        path: `${process.env.SCREENSHOT_DIR}/key-card-member-cap-phone.png`,
        fullPage: true,
      });
    }
    // The owner sees whose cap it is.
    await page.goto("/profile/api-keys");
    await expect(page.locator(`[data-api-key="${keyId}"]`)).toContainText(
      `10 of 12 credits (all of ${developer.username}'s keys)`,
    );
    // The list holds other members' keys: its heading does not say "Your keys", and each card who made it.
    await expect(page.getByRole("heading", { name: API_KEYS_TEXT.listTitle(true) })).toBeVisible();
    await expect(page.locator(`[data-api-key="${keyId}"]`)).toContainText(
      `${API_KEYS_TEXT.columns.madeBy}${developer.username}`,
    );
    expect(await axeViolations(page)).toEqual([]);

    // 5. The owner reads the usage by member.
    await page.goto("/profile/usage");
    const usage = page.locator("[data-usage]");
    await expect(usage).toHaveAttribute("data-status", "ready");
    await usage.locator("[data-usage-stack]").getByRole("radio", { name: USAGE_TEXT.stacks.member }).check();
    const byMember = page.locator('[data-usage-totals="usage-by-member"] tbody tr');
    await expect(byMember.filter({ hasText: developer.username }).locator("td")).toHaveText(["2", "10"]);

    // 6. The owner removes the developer: the dialog names the key, which stops at once.
    await page.goto("/org/members");
    await row.getByRole("button", { name: `${T.remove} ${developer.username}` }).click();
    const remove = page.getByRole("dialog", { name: T.removeTitle(developer.username) });
    await expect(remove).toContainText("Comic renderer");
    await remove.getByRole("button", { name: T.confirmRemove }).click();
    await expect(page.locator("[data-removal-result]")).toContainText("Comic renderer");
    const afterRemoval = await consume(4);
    expect(afterRemoval.status()).toBe(404);
    // The developer's portal notices on its next page: back to their own account, said once.
    await devPage.goto("/profile");
    await expect(devPage.getByText(ORG_DETAIL.noLongerMember)).toBeVisible();
    await expect(devPage.locator('[data-profile-field="organization"]')).toHaveCount(0);
    await devPage.context().close();

    // 7. The owner tops up 500 credits, again as the French business (reverse charge).
    await page.goto("/profile");
    await page.getByRole("radio", { name: /500 credit pack/ }).check();
    await page.getByRole("button", { name: PROFILE_TEXT.buy, exact: true }).click();
    await payOnCheckout(page, "4242 4242 4242 4242", FRENCH_BUSINESS);
    await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
    await profileUntil(async () => {
      expect(await tokensOnProfile()).toBe(paid - 10 + 500);
    });
    await page.goto("/profile/billing");
    await expect(page.locator("[data-billing]")).toContainText(FRENCH_BUSINESS.vatId ?? "");
    expect(await axeViolations(page)).toEqual([]);
  });
});
