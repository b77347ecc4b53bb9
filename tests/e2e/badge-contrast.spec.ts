// Every badge the portal draws is readable in both themes (WCAG AA contrast). The page sweeps see a
// badge only when their data shows it: the console's list of organisations showed "Deleted" in
// daisyUI's soft warning badge at 1.69:1 once another journey had deleted an organisation. So this
// draws each badge the source names, with the stylesheet the server serves, and asks axe.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { axeViolations } from "../fixtures/axe.ts";
import { COLOR_SCHEMES } from "../fixtures/pages.ts";
import { expect, test } from "../fixtures/test.ts";

const SOURCE = join(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(tsx?|astro)$/.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => join(dir, file));
}

/**
 * The class lists of the badges in `source`: a class string holding `badge`, and a colour that a
 * status map gives one (`paid: "badge-success"`), drawn as `badge badge-success`.
 */
function badgeClasses(source: string): string[] {
  const found = new Set<string>();
  for (const [, classes = ""] of source.matchAll(/"([^"]*)"/g)) {
    if (classes.split(/\s+/).includes("badge")) found.add(classes);
    else if (/^badge-[a-z]+$/.test(classes)) found.add(`badge ${classes}`);
  }
  return [...found];
}

const BADGES = [
  ...new Set(sourceFiles(SOURCE).flatMap((file) => badgeClasses(readFileSync(file, "utf8")))),
].sort();

test("finds the badges of the status maps and the islands", () => {
  expect(BADGES).toEqual(
    expect.arrayContaining(["badge badge-success", "badge badge-warning", "badge badge-ghost"]),
  );
  expect(BADGES.length).toBeGreaterThanOrEqual(10);
});

for (const colorScheme of COLOR_SCHEMES) {
  test(`every badge of the source meets contrast in the ${colorScheme} theme`, async ({ page }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await page.locator("main").evaluate((main, badges) => {
      main.append(
        ...badges.map((classes) => {
          const line = document.createElement("p");
          const badge = document.createElement("span");
          badge.className = classes;
          badge.textContent = `Status ${classes}`;
          line.append(badge);
          return line;
        }),
      );
    }, BADGES);
    await expect(page.locator("main p > .badge")).toHaveCount(BADGES.length);
    expect(await axeViolations(page)).toEqual([]);
  });
}
