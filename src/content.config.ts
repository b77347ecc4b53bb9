// Content collections: the prebuilt marketing and pricing content, each with its schema from
// src/content/schemas.ts (field docs and examples live there).
import { defineCollection } from "astro:content";
import { file } from "astro/loaders";
import { planEntries, topUpEntries } from "./content/entries.ts";
import { readContentYaml } from "./content/files.ts";
import { parseOrderedYamlList } from "./content/order.ts";
import {
  creditCostSchema,
  faqSchema,
  planCopyFileSchema,
  planSchema,
  siteLinkSchema,
  tierFeatureSchema,
  topUpSchema,
} from "./content/schemas.ts";

/** Local plan information keyed by product id, both id sets; written once per tier in plans.yaml. */
const plans = defineCollection({
  loader: async () => planEntries(planCopyFileSchema.parse(await readContentYaml("plans.yaml"))),
  schema: planSchema,
});

/** Local top-up information keyed by product id, both id sets; derived from contract/catalogue.ts. */
const topUps = defineCollection({
  loader: async () => topUpEntries(),
  schema: topUpSchema,
});

/** Feature table values the catalogue does not hold, keyed by tier ("A" to "E"). */
const tierFeatures = defineCollection({
  loader: file("src/content/tier-features.yaml"),
  schema: tierFeatureSchema,
});

/** Lists shown in the order they are written; read them back with inFileOrder(). */
const ordered = (fileName: string) => file(`src/content/${fileName}`, { parser: parseOrderedYamlList });

const creditCosts = defineCollection({ loader: ordered("credit-costs.yaml"), schema: creditCostSchema });

const faq = defineCollection({ loader: ordered("faq.yaml"), schema: faqSchema });

/** OPERATOR-set external addresses (help centre, docs, forms, legal, social). */
const siteLinks = defineCollection({ loader: ordered("site-links.yaml"), schema: siteLinkSchema });

export const collections = { plans, topUps, tierFeatures, creditCosts, faq, siteLinks };
