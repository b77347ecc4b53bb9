// Content collections: the prebuilt marketing and pricing content, each with its schema from
// src/content/schemas.ts (field docs and examples live there).
import { defineCollection } from "astro:content";
import { file } from "astro/loaders";
import { planEntries, topUpEntries } from "./content/entries.ts";
import { readContentYaml } from "./content/files.ts";
import { parseOrderedYamlList } from "./content/order.ts";
import { faqSchema, planCopyFileSchema, planSchema, siteLinkSchema, topUpSchema } from "./content/schemas.ts";

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

/** Lists shown in the order they are written; read them back with inFileOrder(). */
const ordered = (fileName: string) => file(`src/content/${fileName}`, { parser: parseOrderedYamlList });

const faq = defineCollection({ loader: ordered("faq.yaml"), schema: faqSchema });

/** OPERATOR-set external addresses (help centre, docs, forms, legal, social). */
const siteLinks = defineCollection({ loader: ordered("site-links.yaml"), schema: siteLinkSchema });

export const collections = { plans, topUps, faq, siteLinks };
