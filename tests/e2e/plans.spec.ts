// /plans is prebuilt HTML: with JavaScript off a visitor still sees every plan and every table.
import { TIERS, TOP_UPS } from "../../contract/catalogue.ts";
import { expect, test } from "../fixtures/test.ts";

test.use({ javaScriptEnabled: false });

const byPrice = [...TIERS].sort((a, b) => a.unitAmount - b.unitAmount);
const euros = (cents: number) => `€${Math.ceil(cents / 100).toLocaleString("en-US")}`;

test("shows the plan cards cheapest first, each with price, period, benefits and a subscribe link", async ({
  page,
}) => {
  await page.goto("/plans");
  const cards = page.locator("[data-plan-card]");
  await expect(cards).toHaveCount(TIERS.length);
  await expect(cards.getByRole("heading", { level: 2 })).toHaveText(byPrice.map((t) => t.name));
  for (const [index, tier] of byPrice.entries()) {
    const card = cards.nth(index);
    await expect(card.locator('[data-island-slot="plan-price"]')).toHaveText(
      `${euros(tier.unitAmount)}(excl. VAT)`,
    );
    await expect(card).toContainText("per month");
    await expect(card).toContainText(tier.creditsPerMonth.toLocaleString("en-US"));
    expect(await card.locator("li").count()).toBeGreaterThan(2);
    await expect(card.locator(".sr-only", { hasText: /^Included:/ }).first()).toBeAttached();
    await expect(card.getByRole("link", { name: `Subscribe now to ${tier.name}` })).toHaveAttribute(
      "href",
      "/register",
    );
  }
  // The cheapest tier lacks some benefits, and its card says so.
  await expect(
    cards
      .first()
      .locator(".sr-only", { hasText: /^Not included:/ })
      .first(),
  ).toBeAttached();
});

test("keeps every price in a box of the same fixed size, so the live price cannot shift the layout", async ({
  page,
}) => {
  await page.goto("/plans");
  const heights = await page
    .locator('[data-island-slot="plan-price"]')
    .evaluateAll((slots) => slots.map((s) => getComputedStyle(s).height));
  expect(heights).toHaveLength(TIERS.length);
  expect(new Set(heights)).toEqual(new Set(["48px"]));
});

test("shows the feature table with each tier's credits and concurrent requests", async ({ page }) => {
  await page.goto("/plans");
  const table = page.getByRole("table", { name: /What each tier includes/ });
  await expect(table.getByRole("row")).toHaveCount(TIERS.length + 1);
  await expect(table.getByRole("columnheader")).toHaveText([
    "Tier",
    "Price per month",
    "Credits per month",
    "Concurrent requests",
  ]);
  const concurrency: Record<string, string> = { B: "up to 4", C: "up to 5", D: "up to 7", E: "up to 10" };
  for (const tier of TIERS) {
    const row = table.getByRole("row", { name: new RegExp(`^${tier.name}\\b`) });
    await expect(row).toContainText(tier.creditsPerMonth.toLocaleString("en-US"));
    await expect(row).toContainText(euros(tier.unitAmount));
    const expected = concurrency[tier.key];
    if (expected) await expect(row.getByRole("cell").last()).toHaveText(expected);
  }
});

test("shows the top-up table: 500 credits for €50 and 1000 for €90, expiring after 6 months", async ({
  page,
}) => {
  await page.goto("/plans");
  const table = page.getByRole("table", { name: /One-time packs/ });
  await expect(table.getByRole("row")).toHaveCount(TOP_UPS.length + 1);
  const first = table.getByRole("row").nth(1);
  await expect(first).toContainText("500 credit pack");
  await expect(first).toContainText("500 credits at 0.1 EUR per credit, expiring in 6 months");
  await expect(first).toContainText("€50");
  await expect(first).toContainText("6 months");
  const second = table.getByRole("row").nth(2);
  await expect(second).toContainText("1000 credit pack");
  await expect(second).toContainText("€90");
});

test("shows what one use of every feature costs in credits", async ({ page }) => {
  await page.goto("/plans");
  await expect(page.getByRole("heading", { name: "What are my credits worth?" })).toBeVisible();
  const table = page.getByRole("table", { name: /Credits used by one generation/ });
  await expect(table.getByRole("columnheader")).toHaveText(["Feature", "One person", "Multiple people"]);
  const rows: Array<[feature: string, credits: string]> = [
    ["Standard or self-made filter", "1"],
    ["Custom creations", "2"],
    ["Multiswap", "2"],
    ["Background remover", "0.1"],
    ["Image-to-video", "10"],
    ["Comic", "5"],
    ["Skin refiner", "1"],
    ["Cloth swap", "1"],
  ];
  await expect(table.getByRole("rowheader")).toHaveText(rows.map(([feature]) => feature));
  for (const [feature, credits] of rows) {
    await expect(table.getByRole("row", { name: feature }).getByRole("cell")).toHaveText([credits, credits]);
  }
});

test("opens every FAQ answer without JavaScript", async ({ page }) => {
  await page.goto("/plans");
  const questions = page.locator("[data-faq] details");
  expect(await questions.count()).toBeGreaterThanOrEqual(10);
  const expiry = page.locator("[data-faq] details", { hasText: "Do my credits expire?" });
  await expect(expiry.locator("p")).toBeHidden();
  await expiry.locator("summary").click();
  await expect(expiry.locator("p")).toBeVisible();
  await expect(expiry.locator("p")).toContainText("Free-plan initial credits do not expire");
  for (const phrase of [
    "midnight CET",
    "By card only",
    "not available on the Free plan",
    "8:00 and 20:00 CEST",
  ]) {
    await expect(page.locator("[data-faq]")).toContainText(phrase);
  }
});

test("links to the help centre and the contact page", async ({ page }) => {
  await page.goto("/plans");
  const help = page.getByRole("region", { name: "Still have questions?" });
  await expect(help.getByRole("link", { name: /Helpcenter/ })).toHaveAttribute("href", /^https:\/\//);
  await expect(help.getByRole("link", { name: /Contact us/ })).toHaveAttribute("href", /^https:\/\//);
});
