// Every page, at a phone and a desktop width, in the light and the dark theme: it answers with
// the right status, says what it is, and has no console errors, axe violations or invalid HTML.
import { axeViolations } from "../fixtures/axe.ts";
import { htmlErrors } from "../fixtures/html.ts";
import { COLOR_SCHEMES, NOT_FOUND_CONSOLE_ERROR, PORTAL_PAGES, WIDTHS } from "../fixtures/pages.ts";
import { expect, test } from "../fixtures/test.ts";

for (const portalPage of PORTAL_PAGES) {
  test.describe(`${portalPage.path}`, () => {
    if (portalPage.status === 404) test.use({ allowedConsoleErrors: [NOT_FOUND_CONSOLE_ERROR] });

    for (const width of WIDTHS) {
      for (const colorScheme of COLOR_SCHEMES) {
        test(`at ${width} px in the ${colorScheme} theme has no console errors and no axe violations`, async ({
          page,
        }) => {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme });
          const response = await page.goto(portalPage.path);
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
      expect(await htmlErrors(await response.text(), portalPage.path)).toEqual([]);
    });

    test("has its own title, description and Open Graph tags", async ({ page }) => {
      await page.goto(portalPage.path);
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

    test("opens every external link in a new tab without opener or referrer", async ({ page }) => {
      await page.goto(portalPage.path);
      const external = page.locator('a[href^="http"], a[href^="//"]');
      expect(await external.count()).toBeGreaterThan(0);
      for (const link of await external.all()) {
        await expect(link).toHaveAttribute("target", "_blank");
        await expect(link).toHaveAttribute("rel", "noopener noreferrer");
      }
    });
  });
}
