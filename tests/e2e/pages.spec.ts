// Every page, at a phone and a desktop width, in the light and the dark theme: it answers with
// the right status, says what it is, and has no console errors, axe violations or invalid HTML.
import type { APIRequestContext, Page } from "@playwright/test";
import { createVerifiedUser, openSignedIn, tokenViaApi } from "../fixtures/account.ts";
import { axeViolations } from "../fixtures/axe.ts";
import { gluedWords, htmlErrors } from "../fixtures/html.ts";
import {
  COLOR_SCHEMES,
  NOT_FOUND_CONSOLE_ERROR,
  PORTAL_PAGES,
  type PortalPage,
  WIDTHS,
} from "../fixtures/pages.ts";
import { expect, test } from "../fixtures/test.ts";
import { staffViaCli } from "../fixtures/two-factor.ts";

/**
 * The signed-in session each page's tests share in this worker, made at its first test: a freshly
 * registered user (a staff member for the console's pages) that only ever looks at that page. Its
 * sweeps and checks change nothing, so six tests need one user, not six. Registering (about 0.5 s on
 * a busy machine), making a staff member through the CLI (about 2 s) and opening the page twice
 * came to about a third of this file's time.
 */
const sessions = new Map<string, Promise<string>>();

function sessionFor(request: APIRequestContext, portalPage: PortalPage): Promise<string> {
  let session = sessions.get(portalPage.path);
  if (!session) {
    session = (async () => {
      const user = await createVerifiedUser(request, "sweep");
      return portalPage.staffRole
        ? staffViaCli(request, user, portalPage.staffRole)
        : tokenViaApi(request, user);
    })();
    // A failed sign-up is that test's failure; the next test tries afresh.
    session.catch(() => sessions.delete(portalPage.path));
    sessions.set(portalPage.path, session);
  }
  return session;
}

/**
 * Opens the page as a visitor, or, for a page that sends visitors away (/profile and below),
 * signed in, once what it shows a new user has loaded (`signedInReady`), so the sweep sees what the
 * page is for; the redirect has its own journey.
 */
async function open(page: Page, request: APIRequestContext, portalPage: PortalPage) {
  if (!portalPage.visitorRedirect) return page.goto(portalPage.path);
  const response = await openSignedIn(page, await sessionFor(request, portalPage), portalPage.path);
  await expect(page.locator(portalPage.signedInReady ?? "main")).toBeVisible();
  return response;
}

for (const portalPage of PORTAL_PAGES) {
  test.describe(`${portalPage.path}`, () => {
    test.use({
      allowedConsoleErrors: [
        ...(portalPage.status === 404 ? [NOT_FOUND_CONSOLE_ERROR] : []),
        ...(portalPage.expectedConsoleErrors ?? []),
      ],
    });

    for (const width of WIDTHS) {
      for (const colorScheme of COLOR_SCHEMES) {
        test(`at ${width} px in the ${colorScheme} theme has no console errors and no axe violations`, async ({
          page,
          request,
        }) => {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme });
          const response = await open(page, request, portalPage);
          expect(response?.status()).toBe(portalPage.status);
          await expect(page.getByRole("heading", { level: 1 })).toHaveText(portalPage.heading);
          expect(await axeViolations(page)).toEqual([]);
          // Nothing may stick out sideways: a horizontal scrollbar on a phone is a layout bug.
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
        });
      }
    }

    test(`answers HTTP ${portalPage.status} with valid HTML`, async ({ request }) => {
      const response = await request.get(portalPage.path);
      expect(response.status()).toBe(portalPage.status);
      expect(response.headers()["content-type"]).toContain("text/html");
      const html = await response.text();
      expect(await htmlErrors(html, portalPage.path)).toEqual([]);
      expect(gluedWords(html)).toEqual([]);
    });

    test("has its own title, description and Open Graph tags", async ({ page, request }) => {
      await open(page, request, portalPage);
      await expect(page).toHaveTitle(portalPage.title);
      const meta = (selector: string) => page.locator(selector).getAttribute("content");
      const description = await meta('meta[name="description"]');
      expect(description?.length ?? 0).toBeGreaterThan(30);
      expect(await meta('meta[property="og:title"]')).toBe(portalPage.title);
      expect(await meta('meta[property="og:description"]')).toBe(description);
      expect(await meta('meta[property="og:type"]')).toBe("website");
      expect(await meta('meta[property="og:image"]')).toMatch(/^https?:\/\/.+\/og-image\.jpg$/);
      expect(await meta('meta[property="og:url"]')).toMatch(/^https?:\/\//);
      await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon.svg");
      if (portalPage.noindex) {
        expect(await meta('meta[name="robots"]')).toBe("noindex");
      } else {
        await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", /^https?:\/\/.+/);
      }
    });

    test("opens every external link in a new tab without opener or referrer", async ({ page, request }) => {
      await open(page, request, portalPage);
      const external = page.locator('a[href^="http"], a[href^="//"]');
      expect(await external.count()).toBeGreaterThan(0);
      for (const link of await external.all()) {
        await expect(link).toHaveAttribute("target", "_blank");
        await expect(link).toHaveAttribute("rel", "noopener noreferrer");
      }
    });
  });
}
