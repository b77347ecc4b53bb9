// What the account area offers a member by role (ORGANISATIONS.md: "What a role may not do is not
// offered"): a billing member sees the organisation's usage and billing but makes no API keys, so
// neither the menus, /profile, an empty usage page nor the leave dialog speak of keys of theirs; and
// a long organisation name never hides the role on /profile.
import type { Page } from "@playwright/test";
import { API_KEYS_TEXT } from "../../src/lib/api-keys-text.ts";
import { INVITATION_TEXT } from "../../src/lib/invitation-text.ts";
import { ORG_PAGE_TEXT } from "../../src/lib/org-text.ts";
import { PROFILE_TEXT } from "../../src/lib/profile-text.ts";
import { UI_TEXT } from "../../src/lib/ui-text.ts";
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
import { introspect, makeServiceKey } from "../fixtures/service-key.ts";
import { expect, test } from "../fixtures/test.ts";

const T = ORG_PAGE_TEXT;

/** A long name (57 of the 60 characters allowed): cut short in the field, never the role beside it. */
const longName = () =>
  `Northern Lights Generative Imaging and Video Studio ${Math.random().toString(36).slice(2, 7)}`;

type Request = Parameters<typeof createVerifiedUser>[0];

/** A new owner's new team with a long name, and a user to join it. */
async function teamAndNewcomer(request: Request, prefix: string) {
  const owner = await createVerifiedUser(request, "owner");
  const member = await createVerifiedUser(request, prefix);
  const ownerToken = await tokenViaApi(request, owner);
  const name = longName();
  const orgId = await createOrgViaApi(request, ownerToken, name);
  return { member, ownerToken, name, orgId };
}

/** A team that has invited a newcomer as a developer: the invitation's path, not yet accepted. */
async function invitedDeveloper(request: Request, prefix: string) {
  const team = await teamAndNewcomer(request, prefix);
  await inviteViaApi(request, team.ownerToken, team.orgId, team.member.email, "developer");
  return { ...team, path: await invitationPath(request, team.member.email) };
}

async function openAsMember(page: Page, request: Request, role: "billing" | "developer") {
  const { member, ownerToken, name, orgId } = await teamAndNewcomer(request, role.slice(0, 4));
  const memberToken = await joinViaApi(request, ownerToken, orgId, member, role);
  await page.goto("/robots.txt");
  await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
  await openSignedIn(page, memberToken, "/profile");
  return { member, memberToken, name };
}

/** The account's page links a menu offers, by their address. */
async function menuLinks(menu: ReturnType<Page["locator"]>): Promise<string[]> {
  return menu
    .locator('a[href^="/profile"], a[href^="/admin"]')
    .evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
}

test.describe("a billing member is offered usage and billing, never API keys", () => {
  for (const width of [390, 768, 1280]) {
    test(`at ${width} px: menu, /profile, /profile/api-keys, an empty usage page and leaving`, async ({
      page,
      request,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      const keyCalls: string[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).pathname.startsWith("/v1/api-keys")) keyCalls.push(r.url());
      });
      const { member, name } = await openAsMember(page, request, "billing");

      // /profile: the role in sight beside the long name; the usage section offers no keys.
      const field = page.locator('[data-profile-field="organization"]');
      await expect(field).toHaveValue(name);
      const role = page.locator("[data-profile-org-role]");
      await expect(role).toHaveText("Billing");
      await expect(role).toBeInViewport({ ratio: 1 });
      const fieldBox = await field.boundingBox();
      const roleBox = await role.boundingBox();
      expect(fieldBox && roleBox && fieldBox.x + fieldBox.width <= roleBox.x + 1).toBe(true);
      await expect(page.getByRole("heading", { name: PROFILE_TEXT.usageTitle, exact: true })).toBeVisible();
      await expect(page.getByText(PROFILE_TEXT.usageIntro)).toBeVisible();
      await expect(page.locator("[data-api-keys-link]")).toHaveCount(0);
      await expect(page.locator("[data-usage-link]")).toBeVisible();
      await expect(page.locator("[data-billing-link]")).toBeVisible();
      if (process.env.SCREENSHOT_DIR) {
        await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/profile-billing-member-${width}.png` });
      }
      expect(await axeViolations(page)).toEqual([]);

      // The menu (the phone's, or the top bar's) offers the pages the role may use.
      const menu =
        width < 768 ? page.locator("[data-mobile-menu]") : page.locator('[data-island-slot="account"]');
      if (width < 768) await page.locator("[data-mobile-menu] > summary").click();
      else await menu.getByText(/^Hi, /).click();
      await expect(menu.getByRole("link", { name: UI_TEXT.usage.menu })).toBeVisible();
      expect(await menuLinks(menu)).toEqual([
        "/profile",
        "/profile/usage",
        "/profile/billing",
        "/profile/security",
      ]);
      await expect(menu.getByRole("link", { name: UI_TEXT.apiKeys.menu })).toHaveCount(0);

      // /profile/api-keys by its address: a sentence about the role, and no call for keys.
      await page.goto("/profile/api-keys");
      const notForRole = page.locator("[data-keys-not-for-role]");
      await expect(notForRole.getByRole("status")).toHaveText(API_KEYS_TEXT.notForRole);
      await expect(notForRole.getByRole("link", { name: API_KEYS_TEXT.usageLink })).toHaveAttribute(
        "href",
        "/profile/usage",
      );
      await expect(page.getByText(API_KEYS_TEXT.loadFailed)).toHaveCount(0);
      expect(keyCalls).toEqual([]);

      // An empty usage page offers no "Create API key".
      await page.goto("/profile/usage");
      await expect(page.locator("[data-usage-empty]")).toContainText(USAGE_TEXT.emptyTitle);
      await expect(page.locator("[data-usage-empty]")).toContainText(USAGE_TEXT.emptyBodyTeam);
      await expect(page.getByRole("link", { name: API_KEYS_TEXT.create })).toHaveCount(0);

      // Leaving: the dialog says what leaving does, and nothing about keys of theirs.
      await page.goto("/org/members");
      await page.locator(`[data-member="${member.username}"]`).getByRole("button", { name: T.leave }).click();
      const dialog = page.getByRole("dialog", { name: T.leaveTitle(name) });
      // Known at once: no "Looking up…" line first (the first paint already says "none").
      await expect(dialog.locator("[data-removal-keys]")).toHaveAttribute("data-removal-keys", "none");
      await expect(dialog).toContainText(T.leaveBody(name));
      await expect(dialog).not.toContainText("API key");
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

test("a developer leaving is told which of their own keys stop, once, in the first person", async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const { member, name } = await openAsMember(page, request, "developer");
  await expect(page.locator("[data-profile-org-role]")).toHaveText("Developer");
  await expect(page.locator("[data-api-keys-link]")).toBeVisible();
  // No billing for a developer: the section offers security alone, and says only that.
  const security = page.getByRole("region", { name: PROFILE_TEXT.securityTitle });
  await expect(security).toContainText(PROFILE_TEXT.securityIntro);
  await expect(page.getByText(PROFILE_TEXT.accountIntro)).toHaveCount(0);
  await page.goto("/org/members");
  await page.locator(`[data-member="${member.username}"]`).getByRole("button", { name: T.leave }).click();
  const dialog = page.getByRole("dialog", { name: T.leaveTitle(name) });
  await expect(dialog.locator("[data-removal-keys=ready]")).toContainText(T.ownNoKeys);
  await expect(dialog).not.toContainText(/\bthey\b/i);
});

test("the password-changed mail's revoke-all link works for a billing member: keys made elsewhere go", async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { memberToken } = await openAsMember(page, request, "billing");
  // A key of their personal account (no organisation named): the one the mail is about.
  const made = await request.post("/v1/api-keys", {
    data: { name: "Laptop" },
    headers: { Authorization: `Bearer ${memberToken}` },
  });
  expect(made.status()).toBe(201);
  const { key } = (await made.json()) as { key: string };

  await page.goto("/profile/api-keys#revoke-all");
  const dialog = page.getByRole("dialog", { name: API_KEYS_TEXT.revokeAllTitle });
  await expect(dialog.getByText(API_KEYS_TEXT.revokeAllBody)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await dialog.getByRole("button", { name: API_KEYS_TEXT.confirmRevokeAll }).click();
  await expect(page.getByText(API_KEYS_TEXT.revokedAll(1))).toBeVisible();
  expect(new URL(page.url()).hash).toBe("");
  expect(await introspect(request, await makeServiceKey(), key)).toEqual({ active: false });
});

test("switching organisation in the menu right after accepting goes to /profile, not the used link", async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const { member, name, orgId, path } = await invitedDeveloper(request, "join");

  await openSignedIn(page, await tokenViaApi(request, member), path);
  await page.getByRole("button", { name: INVITATION_TEXT.accept }).click();
  await expect(page.locator("[data-invitation-accepted]")).toContainText(INVITATION_TEXT.accepted);
  if (process.env.SCREENSHOT_DIR) {
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/invitation-accepted-1280.png` });
  }
  const account = page.locator('[data-island-slot="account"]');
  await account.getByText(/^Hi, /).click();
  await account.locator(`[data-org-choice="${orgId}"]`).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.locator('[data-profile-field="organization"]')).toHaveValue(name);
  await expect(page.getByText(INVITATION_TEXT.invalid)).toHaveCount(0);
});

test("signed out on an invitation, the top bar's Log In comes back to it", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const { member, path } = await invitedDeveloper(request, "back");

  await page.goto(path);
  await expect(page.locator("[data-invitation-signed-out]")).toBeVisible();
  await page.locator('[data-island-slot="account"]').getByRole("link", { name: UI_TEXT.logIn }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Username").fill(member.username);
  await page.getByLabel("Password", { exact: true }).fill(member.password);
  await page.getByRole("button", { name: UI_TEXT.logIn }).click();
  await expect(page).toHaveURL(new RegExp(`${path}$`));
  await expect(page.getByRole("button", { name: INVITATION_TEXT.accept })).toBeVisible();
});
