// Every badge the portal draws is readable in both themes (WCAG AA contrast). The page sweeps see a
// badge only when their data shows it: the console's list of organisations showed "Deleted" in
// daisyUI's soft warning badge at 1.69:1 once another journey had deleted an organisation. So this
// draws each badge the source names, with the stylesheet the server serves, and asks axe.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { axeViolations } from "../fixtures/axe.ts";
import { contrastRatio } from "../fixtures/contrast.ts";
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
const token = (names: string) => new RegExp(`(?<![\\w-])badge-(?:${names})(?![\\w-])`, "g");

/**
 * The badges `sources` can draw. A class attribute written out whole (`className="badge badge-sm"`)
 * as it is. Badges put together from parts (a status map's `"badge-warning"` in
 * `` `badge ${STATUS_BADGE[status]}` ``, Astro's `class:list`, a joined string) in every colour the
 * same file names, plain and in each style (`badge-soft`, `badge-outline`, `badge-dash`) its parts
 * name. A colour named in one file and styled in another is not drawn styled.
 */
function badgeClasses(sources: readonly string[]): string[] {
  const found = new Set<string>();
  for (const source of sources) {
    const parts = source.replace(/\b(?:className|class)="([^"\n]*)"/g, (attribute, classes: string) => {
      if (!classes.split(/\s+/).includes("badge")) return attribute;
      found.add(classes);
      return "";
    });
    const colours = ["", ...new Set([...parts.matchAll(token(COLOURS))].map(([name]) => name))];
    const styles = ["", ...new Set([...parts.matchAll(token(STYLES))].map(([name]) => name))];
    for (const style of styles)
      for (const colour of colours) found.add(["badge", style, colour].filter(Boolean).join(" "));
  }
  return [...found].sort();
}

/** Each element's text colour and the colour behind it, composited over its ancestors' backgrounds. */
function paintedColours(elements: Element[]): { classes: string; page: number[]; text: number[] }[] {
  const canvas = document.createElement("canvas");
  canvas.width = 1;
  canvas.height = 1;
  const context = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
  const painted = (colours: readonly string[]) => {
    context.fillStyle = "white";
    context.fillRect(0, 0, 1, 1);
    for (const colour of colours) {
      // A colour the canvas cannot read leaves its fill as it was: told, not painted over.
      context.fillStyle = "#010203";
      context.fillStyle = colour;
      if (context.fillStyle === "#010203" && colour !== "#010203")
        throw new Error(`Unreadable colour ${colour}`);
      context.fillRect(0, 0, 1, 1);
    }
    return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  };
  return elements.map((element) => {
    const behind: string[] = [];
    for (let at: Element | null = element; at; at = at.parentElement)
      behind.unshift(getComputedStyle(at).backgroundColor);
    return {
      classes: element.className,
      page: painted(behind),
      text: painted([...behind, getComputedStyle(element).color]),
    };
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
      "badge badge-ghost gap-1 font-semibold tabular-nums",
    ]),
  );
  // A style among the parts is drawn in every colour of its file: the console's soft badges were.
  const placeholder = "$" + "{COLOUR[s]}"; // a template literal's, as the file's text holds it
  const templated = `<b className={\`badge badge-soft ${placeholder}\`} />\nconst COLOUR = { paid: "badge-success" };`;
  expect(badgeClasses([templated])).toEqual([
    "badge",
    "badge badge-soft",
    "badge badge-soft badge-success",
    "badge badge-success",
  ]);
  expect(
    badgeClasses(['<b class:list={["badge badge-soft", tone]} />\nconst tone = "badge-warning";']),
  ).toContain("badge badge-soft badge-warning");
  // A whole attribute as it is; a colour of another file is not styled here.
  expect(badgeClasses(['<b className="badge badge-outline badge-sm" />', 'x = "badge-neutral"'])).toEqual([
    "badge",
    "badge badge-neutral",
    "badge badge-outline badge-sm",
  ]);
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
    const measured = (await page.locator("main p > .badge").evaluateAll(paintedColours)).map(
      ({ classes, page: behind, text }) => ({ classes, ratio: contrastRatio(behind, text) }),
    );
    expect(measured).toHaveLength(BADGES.length);
    expect(
      measured
        .filter(({ ratio }) => ratio < 4.5)
        .map(({ classes, ratio }) => `${classes}: ${ratio.toFixed(2)}:1`),
    ).toEqual([]);
  });
}
