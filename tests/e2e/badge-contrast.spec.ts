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

const COLOURS = "neutral|primary|secondary|accent|info|success|warning|error|ghost";
const STYLES = "soft|outline|dash";
const token = (names: string) => new RegExp(`(?<![\\w-])badge-(${names})(?![\\w-])`, "g");

/**
 * The badges `sources` can draw. Each class list written out whole (`"badge badge-ghost badge-sm"`),
 * as it is; and, since status maps and template literals put a badge together from parts
 * (`` `badge ${STATUS_BADGE[status]}` ``), every colour the sources name, plain and in every style
 * (`badge-soft`, `badge-outline`, `badge-dash`) named anywhere but inside a whole class list.
 */
function badgeClasses(sources: readonly string[]): string[] {
  const found = new Set<string>();
  const colours = new Set<string>();
  const styles = new Set<string>([""]);
  for (const source of sources) {
    const parts = source.replace(/"([^"\n]*)"/g, (quoted, classes: string) => {
      if (!classes.split(/\s+/).includes("badge")) return quoted;
      found.add(classes);
      return '""';
    });
    for (const [, colour] of source.matchAll(token(COLOURS))) colours.add(`badge-${colour}`);
    for (const [, style] of parts.matchAll(token(STYLES))) styles.add(`badge-${style}`);
  }
  for (const style of styles)
    for (const colour of ["", ...colours]) found.add(["badge", style, colour].filter(Boolean).join(" "));
  return [...found].sort();
}

/** Each element's text contrast: its colour over its own and its ancestors' backgrounds (WCAG 2). */
function contrastRatios(elements: Element[]): { classes: string; ratio: number }[] {
  const canvas = document.createElement("canvas");
  canvas.width = 1;
  canvas.height = 1;
  const context = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
  const painted = (colours: readonly string[]) => {
    context.fillStyle = "white";
    context.fillRect(0, 0, 1, 1);
    for (const colour of colours) {
      context.fillStyle = colour;
      context.fillRect(0, 0, 1, 1);
    }
    const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data;
    const linear = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  return elements.map((element) => {
    const behind: string[] = [];
    for (let at: Element | null = element; at; at = at.parentElement)
      behind.unshift(getComputedStyle(at).backgroundColor);
    const page = painted(behind);
    const text = painted([...behind, getComputedStyle(element).color]);
    const ratio = (Math.max(page, text) + 0.05) / (Math.min(page, text) + 0.05);
    return { classes: element.className, ratio: Math.round(ratio * 100) / 100 };
  });
}

const BADGES = badgeClasses(sourceFiles(SOURCE).map((file) => readFileSync(file, "utf8")));

test("finds the badges of the status maps and the islands", () => {
  expect(BADGES).toEqual(
    expect.arrayContaining([
      "badge badge-success",
      "badge badge-warning",
      "badge badge-error",
      "badge badge-ghost badge-sm ms-2",
      "badge badge-outline badge-sm block max-w-28 truncate",
    ]),
  );
  // A style named anywhere is drawn in every colour: the soft badges the console used would be here.
  expect(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, read as a file's.
    badgeClasses(["<b className={`badge badge-soft ${COLOUR[s]}`} />", 'paid: "badge-success"']),
  ).toEqual(["badge", "badge badge-soft", "badge badge-soft badge-success", "badge badge-success"]);
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
    // axe leaves the solid badges undecided ("incomplete", which no sweep fails): daisyUI lays a
    // noise texture over their colour. So each badge is measured here as well: its text colour over
    // the colours behind it, composited on a canvas, against WCAG AA's 4.5:1 for text of this size.
    const measured = await page.locator("main p > .badge").evaluateAll(contrastRatios);
    expect(measured).toHaveLength(BADGES.length);
    expect(measured.filter(({ ratio }) => ratio < 4.5)).toEqual([]);
  });
}
