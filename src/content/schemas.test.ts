import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { TIERS } from "../../contract/catalogue.ts";
import { PRODUCT_IDS, TIER_KEYS } from "../../contract/product-ids.ts";
import { planEntries, topUpEntries } from "./entries.ts";
import { CONTENT_DIR, readContentYaml } from "./files.ts";
import { parseOrderedYamlList } from "./order.ts";
import {
  faqSchema,
  planCopyFileSchema,
  planCopySchema,
  planSchema,
  siteLinkSchema,
  topUpSchema,
} from "./schemas.ts";

/** Entries of an ordered list file as the collection's loader makes them (content.config.ts). */
async function fileEntries(fileName: string): Promise<Array<Record<string, unknown> & { id: string }>> {
  const text = await readFile(`${CONTENT_DIR}/${fileName}`, "utf8");
  return parseOrderedYamlList(text) as Array<Record<string, unknown> & { id: string }>;
}

const withoutIds = ({ id: _id, id_set: _set, ...rest }: { id: string; id_set: string }) => rest;

describe("plans collection", () => {
  const load = async () => planEntries(planCopyFileSchema.parse(await readContentYaml("plans.yaml")));

  it("has an entry that passes the schema for every product id of both id sets", async () => {
    const entries = await load();
    for (const entry of entries) expect(() => planSchema.parse(entry)).not.toThrow();
    for (const set of ["test", "live"] as const) {
      const ids = entries.filter((e) => e.id_set === set).map((e) => e.id);
      expect(ids.sort()).toEqual(TIER_KEYS.map((k) => PRODUCT_IDS[set].tiers[k].product).sort());
    }
  });

  it("says the same in both id sets apart from the ids", async () => {
    const entries = await load();
    const test = entries.filter((e) => e.id_set === "test").map(withoutIds);
    const live = entries.filter((e) => e.id_set === "live").map(withoutIds);
    expect(live).toEqual(test);
  });

  it.each(TIERS.map((t) => [t.key, t.name]))(
    "tier %s is named %s, per month, 'Subscribe now'",
    async (key, name) => {
      const entry = (await load()).find((e) => e.tier === key && e.id_set === "test");
      expect(entry).toMatchObject({ name, recurring_period: "per month", cta_text: "Subscribe now" });
    },
  );

  it("lists the same benefits in the same order on every card, so cards compare line by line", async () => {
    const entries = await load();
    const names = entries.map((e) => e.benefits.map((b) => b.name).join("|"));
    expect(new Set(names).size).toBe(1);
    expect(entries.some((e) => e.benefits.some((b) => !b.included))).toBe(true);
  });

  it.each([
    [{ name: "Gold" }, "a name that is not a tier"],
    [{ benefits: [] }, "an empty benefit list"],
    [{ cta_text: "" }, "an empty button label"],
  ])("refuses %o (%s)", (override, _reason) => {
    const valid = {
      name: "Tier A",
      recurring_period: "per month",
      cta_text: "Subscribe now",
      description: "x",
    };
    const candidate = { ...valid, benefits: [{ name: "b", included: true }], ...override };
    expect(planCopySchema.safeParse(candidate).success).toBe(false);
  });
});

describe("topUps collection", () => {
  it("describes both packs in both id sets with the spec's wording", () => {
    const entries = topUpEntries();
    for (const entry of entries) expect(() => topUpSchema.parse(entry)).not.toThrow();
    expect(entries.filter((e) => e.id_set === "live").map(withoutIds)).toEqual(
      entries.filter((e) => e.id_set === "test").map(withoutIds),
    );
    expect(entries.filter((e) => e.id_set === "test").map(withoutIds)).toEqual([
      {
        key: "500",
        token_amount: 500,
        name: "500 credit pack",
        description: "500 credits at 0.1 EUR per credit, expiring in 6 months",
      },
      {
        key: "1000",
        token_amount: 1000,
        name: "1000 credit pack",
        description: "1000 credits at 0.1 EUR per credit, expiring in 6 months",
      },
    ]);
    expect(entries.map((e) => e.id).sort()).toEqual(
      (["test", "live"] as const)
        .flatMap((s) => Object.values(PRODUCT_IDS[s].topUps).map((p) => p.product))
        .sort(),
    );
  });
});

describe("faq collection", () => {
  it("passes the schema with unique ids", async () => {
    const entries = await fileEntries("faq.yaml");
    for (const entry of entries) expect(() => faqSchema.parse(entry)).not.toThrow();
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });

  it.each([
    ["subscription credits expire after a month", "expire one month after"],
    ["top-up credits expire after 6 months", "expire 6 months after"],
    [
      "subscription credits are used before top-ups",
      "Subscription credits are always used before top-up credits",
    ],
    ["renewal credits arrive at midnight CET", "midnight CET after the"],
    ["free credits do not expire", "Free-plan initial credits do not expire"],
    ["plan changes apply at the period end", "applies after your current period ends"],
    ["an upgrade takes effect next month", "upgrade takes effect next month for monthly subscribers"],
    ["top-ups are not on the Free plan", "not available on the Free plan"],
    ["payment is by card only", "By card only"],
    ["prices exclude VAT", "excluding VAT"],
    ["support hours", "within 1 hour between 8:00 and 20:00 CEST"],
  ])("answers that %s", async (_rule, phrase) => {
    const text = (await fileEntries("faq.yaml")).map((e) => `${e.question} ${e.answer}`).join("\n");
    expect(text).toContain(phrase);
  });
});

describe("siteLinks collection", () => {
  it("has every external page the layout and pages link to, on https", async () => {
    const entries = await fileEntries("site-links.yaml");
    for (const entry of entries) expect(() => siteLinkSchema.parse(entry)).not.toThrow();
    const ids = entries.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        "help-centre",
        "api-docs",
        "custom-filter-form",
        "contact",
        "report-bug",
        "privacy",
        "imprint",
        "terms",
      ]),
    );
    expect(entries.filter((e) => e.group === "social").length).toBeGreaterThan(0);
  });

  it.each([["http://help.example.com"], ["javascript:alert(1)"], ["/help"], ["help.example.com"]])(
    "refuses the address %s",
    (href) => {
      expect(siteLinkSchema.safeParse({ label: "Help", group: "help", order: 0, href }).success).toBe(false);
      expect(
        siteLinkSchema.safeParse({ label: "Help", group: "help", order: 0, href: "https://help.example.com" })
          .success,
      ).toBe(true);
    },
  );
});
