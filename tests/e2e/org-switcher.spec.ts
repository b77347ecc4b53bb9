// Organisations in the portal (ORGANISATIONS.md "Pages"), against the real server: the account
// menu's switcher and the chosen organisation in every call, and a paid team's top bar.
import type { Page } from "@playwright/test";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { ORG_PAGE_TEXT } from "../../src/lib/org-text.ts";
import { PAYMENT_TEXT } from "../../src/lib/payment-text.ts";
import { TOKEN_TEXT } from "../../src/lib/token-text.ts";
import { UI_TEXT } from "../../src/lib/ui-text.ts";
import {
  createOrgViaApi,
  createVerifiedUser,
  joinViaApi,
  openSignedIn,
  tokenViaApi,
} from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { payOnCheckout } from "../fixtures/checkout.ts";
import { contrastRatio } from "../fixtures/contrast.ts";
import { accountArea, openAccountMenu, openAsNewOwner, orgName } from "../fixtures/organisations.ts";
import { expect, test } from "../fixtures/test.ts";

const T = ORG_PAGE_TEXT;

test.describe("the account menu's organisation switcher", () => {
  test("lists Personal and each organisation with the role; choosing one makes every call act on it", async ({
    page,
    request,
  }) => {
    const owner = await createVerifiedUser(request, "owner");
    const member = await createVerifiedUser(request, "member");
    const ownerToken = await tokenViaApi(request, owner);
    const name = orgName("Switch");
    const orgId = await createOrgViaApi(request, ownerToken, name);
    const memberToken = await joinViaApi(request, ownerToken, orgId, member, "billing");

    await page.setViewportSize({ width: 1280, height: 900 });
    await openSignedIn(page, memberToken, "/profile");
    await expect(page.locator("[data-profile]")).toBeVisible();
    await openAccountMenu(page);
    const switcher = accountArea(page);
    await expect(switcher.locator("[data-org-switcher]")).toBeVisible();
    await expect(switcher.locator('[data-org-choice="personal"]')).toHaveAttribute("aria-current", "true");
    await expect(switcher.locator(`[data-org-choice="${orgId}"]`)).toContainText("Billing");
    expect(await axeViolations(page)).toEqual([]);

    const meAsked = page.waitForRequest(
      (r) => r.url().endsWith("/v1/users/me") && r.headers()["x-organization"] === orgId,
    );
    await switcher.locator(`[data-org-choice="${orgId}"]`).click();
    await meAsked;
    await expect(page.locator('[data-profile-field="organization"]')).toHaveValue(name);
    await expect(page.locator("[data-profile-org-role]")).toHaveText("Billing");
    await expect(accountArea(page).locator("[data-org-name]")).toHaveText(name);
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBe(orgId);

    // Back to Personal: the choice goes, and calls carry no header.
    await openAccountMenu(page);
    await accountArea(page).locator('[data-org-choice="personal"]').click();
    await expect(page.locator('[data-profile-field="organization"]')).toHaveCount(0);
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBeNull();
  });

  test("the mobile menu offers the same switcher", async ({ page, request }) => {
    const owner = await createVerifiedUser(request, "owner");
    const ownerToken = await tokenViaApi(request, owner);
    const name = orgName("Phone");
    const orgId = await createOrgViaApi(request, ownerToken, name);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await openSignedIn(page, ownerToken, "/");
    await expect(page.getByRole("button", { name: TOKEN_TEXT.open })).toBeVisible();
    await page.locator("[data-mobile-menu] > summary").click();
    const menu = page.locator("[data-mobile-menu]");
    const acting = page.waitForRequest(
      (r) => r.url().endsWith("/v1/users/me") && r.headers()["x-organization"] === orgId,
    );
    await menu.locator(`[data-org-choice="${orgId}"]`).click();
    // The page loads again acting on it: the menu, opened again, marks it and offers its pages.
    await acting;
    await expect(page.getByRole("button", { name: TOKEN_TEXT.open })).toBeVisible();
    await page.locator("[data-mobile-menu] > summary").click();
    await expect(menu.locator(`[data-org-choice="${orgId}"]`)).toHaveAttribute("aria-current", "true");
    await expect(menu.getByRole("link", { name: T.members })).toBeVisible();
    await expect(menu.getByRole("link", { name: T.settings })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
  });

  test("a user in no team organisation sees no switcher", async ({ page, request }) => {
    const user = await createVerifiedUser(request, "solo");
    await page.setViewportSize({ width: 1280, height: 900 });
    const orgsAsked = page.waitForRequest((r) => r.url().endsWith("/v1/orgs"));
    await openSignedIn(page, await tokenViaApi(request, user), "/");
    await openAccountMenu(page);
    await orgsAsked;
    await expect(page.getByRole("link", { name: UI_TEXT.myAccount })).toBeVisible();
    await expect(page.locator("[data-org-switcher]")).toHaveCount(0);
  });

  test("another tab's choice reloads this one", async ({ page, request }) => {
    const owner = await createVerifiedUser(request, "owner");
    const ownerToken = await tokenViaApi(request, owner);
    const name = orgName("Tabs");
    const orgId = await createOrgViaApi(request, ownerToken, name);
    await openSignedIn(page, ownerToken, "/profile");
    await expect(page.locator("[data-profile]")).toBeVisible();
    const other = await page.context().newPage();
    await other.goto("/profile");
    await expect(other.locator("[data-profile]")).toBeVisible();

    await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
    await expect(other.locator('[data-profile-field="organization"]')).toHaveValue(name);
    await expect(other.locator("[data-profile-org-role]")).toHaveText("Owner");
  });

  test("a choice the user is no longer a member of is forgotten, with a toast", async ({ page, request }) => {
    const owner = await createVerifiedUser(request, "owner");
    const member = await createVerifiedUser(request, "member");
    const ownerToken = await tokenViaApi(request, owner);
    const orgId = await createOrgViaApi(request, ownerToken, orgName("Gone"));
    const memberToken = await joinViaApi(request, ownerToken, orgId, member, "developer");
    const memberId = (
      (await (
        await request.get("/v1/users/me", { headers: { Authorization: `Bearer ${memberToken}` } })
      ).json()) as { id: string }
    ).id;
    const removed = await request.delete(`/v1/orgs/${orgId}/members/${memberId}`, {
      headers: { Authorization: `Bearer ${ownerToken}` },
    });
    expect(removed.status(), await removed.text()).toBe(200);

    await page.goto("/robots.txt");
    await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
    await openSignedIn(page, memberToken, "/profile");
    await expect(page.getByText(ORG_DETAIL.noLongerMember)).toBeVisible();
    await expect(page.locator('[data-profile-field="organization"]')).toHaveCount(0);
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBeNull();
  });

  test("Sign Out forgets the choice", async ({ page, request }) => {
    const owner = await createVerifiedUser(request, "owner");
    const ownerToken = await tokenViaApi(request, owner);
    const orgId = await createOrgViaApi(request, ownerToken, orgName("Out"));
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto("/robots.txt");
    await page.evaluate((id) => localStorage.setItem("x-organization", id), orgId);
    await openSignedIn(page, ownerToken, "/");
    await openAccountMenu(page);
    // Sign Out ends on a fresh load of /; the Log In link shows before that load replaces the
    // page, so reading storage must wait for it or it races the navigation.
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: UI_TEXT.signOut }).click();
    await reloaded;
    await expect(accountArea(page).getByRole("link", { name: UI_TEXT.logIn })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("x-organization"))).toBeNull();
  });
});

/** Each item of the top bar at the page's width: its box, and how many lines its visible text takes. */
async function topBarItems(page: Page) {
  return page.locator("header").evaluate((header) => {
    const shown = (el: Element | null | undefined) =>
      el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" ? el : null;
    const find = (selector: string) => [...header.querySelectorAll(selector)].find(shown) ?? null;
    const lines = (el: Element) => {
      const tops = new Set<number>();
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim() || node.parentElement?.closest(".sr-only")) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
      }
      return tops.size;
    };
    const items = {
      logo: find('a[href="/"]'),
      plan: find("[data-plan-badge]"),
      reportBug: find('nav[aria-label="Main"] a[target="_blank"]'),
      credits: find("[data-credit-balance]"),
      account: find('[data-island-slot="account"] summary'),
    };
    const bar = header.getBoundingClientRect();
    return {
      bar: { top: bar.top, bottom: bar.bottom, width: document.documentElement.clientWidth },
      items: Object.entries(items).map(([name, el]) => {
        const box = el?.getBoundingClientRect();
        return { name, box: box && { left: box.left, right: box.right, top: box.top, bottom: box.bottom } };
      }),
      // The account button holds two lines by design (greeting over the organisation): each one line.
      lines: Object.fromEntries(
        [
          ...Object.entries(items).filter(([name]) => name !== "account"),
          ["greeting", find('[data-island-slot="account"] summary > span > span:first-child')],
          ["organisation", find('[data-island-slot="account"] [data-org-name]')],
        ].map(([name, el]) => [name, el ? lines(el as Element) : 0]),
      ),
    };
  });
}

/**
 * How the chosen organisation's row stands out from the menu around it, in WCAG contrast ratios:
 * its edge or its background against the menu (the better of the two), and its check against the row.
 */
async function chosenRowContrast(row: import("@playwright/test").Locator) {
  const colours = await row.evaluate((button) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const context = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
    /** `color` painted over `under` (CSS colours, any syntax), as sRGB 0-255. */
    const paint = (color: string, under: string | readonly number[] = "white") => {
      context.fillStyle = typeof under === "string" ? under : `rgb(${under.join(" ")})`;
      context.fillRect(0, 0, 1, 1);
      context.fillStyle = color;
      context.fillRect(0, 0, 1, 1);
      return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    };
    // The nearest ancestor with a background of its own: a transparent one paints as what is under it.
    let surface = button.parentElement?.parentElement ?? null;
    while (
      surface &&
      paint(getComputedStyle(surface).backgroundColor, "red").join() !==
        paint(getComputedStyle(surface).backgroundColor, "blue").join()
    )
      surface = surface.parentElement;
    const menu = paint(surface ? getComputedStyle(surface).backgroundColor : "white");
    const row = paint(getComputedStyle(button).backgroundColor, menu);
    const edges = (
      getComputedStyle(button).boxShadow.match(/(?:rgba?|oklch|oklab|lab|lch|color)\([^)]*\)/g) ?? []
    ).map((color) => paint(color, menu));
    const check = button.querySelector("svg");
    return { menu, row, edges, check: check ? paint(getComputedStyle(check).color, row) : null };
  });
  return {
    standsOut: Math.max(
      contrastRatio(colours.row, colours.menu),
      ...colours.edges.map((edge) => contrastRatio(edge, colours.menu)),
    ),
    check: colours.check ? contrastRatio(colours.check, colours.row) : 0,
  };
}

test.describe("a paid team organisation's top bar", () => {
  test.describe.configure({ timeout: 180_000 });

  test("keeps to one row at 768, 1024 and 1280 px, and the switcher marks the chosen organisation in both themes", async ({
    page,
    request,
  }) => {
    // A long name, as a studio's would be; Tier A bought for it through the hosted checkout.
    const { orgId, name } = await openAsNewOwner(page, request, "Northwind Visual Effects", "/plans");
    await page
      .locator('[data-plan-card][data-tier="A"]')
      .getByRole("button", { name: /to Tier A/ })
      .click();
    await payOnCheckout(page, "4242 4242 4242 4242");
    await expect(page.getByRole("heading", { name: PAYMENT_TEXT.success })).toBeVisible();
    await expect(async () => {
      await page.goto("/");
      await expect(page.locator("header [data-plan-badge]").filter({ visible: true })).toHaveText("Tier A", {
        timeout: 2000,
      });
    }).toPass({ timeout: 20_000 });

    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      for (const width of [768, 1024, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        await expect(accountArea(page).locator("[data-org-name]")).toHaveText(name);
        await expect(accountArea(page).locator("[data-org-name]")).toHaveAttribute("title", name);
        const { bar, items, lines } = await topBarItems(page);
        // Every item shown, each on one line, side by side without touching, inside the bar.
        expect(lines, `${width} px`).toEqual({
          logo: 1,
          plan: 1,
          reportBug: 1,
          credits: 1,
          greeting: 1,
          organisation: 1,
        });
        const boxes = items.map(({ name: item, box }) => {
          expect(box, `${item} at ${width} px`).toBeDefined();
          return { item, ...(box as NonNullable<typeof box>) };
        });
        for (const [i, after] of boxes.entries()) {
          const before = boxes[i - 1];
          if (!before) continue;
          expect(after.left, `${before.item} then ${after.item} at ${width} px`).toBeGreaterThanOrEqual(
            before.right + 4,
          );
        }
        for (const box of boxes) {
          expect(box.left, `${box.item} at ${width} px`).toBeGreaterThanOrEqual(0);
          expect(box.right, `${box.item} at ${width} px`).toBeLessThanOrEqual(bar.width);
          expect(box.top, `${box.item} at ${width} px`).toBeGreaterThanOrEqual(bar.top);
          expect(box.bottom, `${box.item} at ${width} px`).toBeLessThanOrEqual(bar.bottom);
        }
      }

      // The chosen organisation stands out in the switcher: an edge or background at 3:1 against the
      // menu, a check at 3:1 against its row, and its name says "current" to a screen reader.
      await page.setViewportSize({ width: 1280, height: 800 });
      await openAccountMenu(page);
      const chosen = accountArea(page).locator(`[data-org-choice="${orgId}"]`);
      await expect(chosen).toHaveAttribute("aria-current", "true");
      await expect(chosen).toHaveAccessibleName(new RegExp(`\\(${T.current}\\)`));
      await expect(accountArea(page).locator('[data-org-choice="personal"]')).not.toHaveAttribute(
        "aria-current",
      );
      const desktop = await chosenRowContrast(chosen);
      expect(desktop.standsOut, `${colorScheme} account menu`).toBeGreaterThanOrEqual(3);
      expect(desktop.check, `${colorScheme} account menu`).toBeGreaterThanOrEqual(3);
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");

      // The phone: the bar holds the logo and the menu; the menu's switcher marks it the same way.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator("[data-mobile-menu] > summary").click();
      const phoneChosen = page.locator(`[data-mobile-menu] [data-org-choice="${orgId}"]`);
      await expect(phoneChosen).toHaveAttribute("aria-current", "true");
      const phone = await chosenRowContrast(phoneChosen);
      expect(phone.standsOut, `${colorScheme} phone menu`).toBeGreaterThanOrEqual(3);
      expect(phone.check, `${colorScheme} phone menu`).toBeGreaterThanOrEqual(3);
      await page.locator("[data-mobile-menu] > summary").click();
    }
  });
});
