// The shape of every content collection, as plain zod schemas so unit tests can check the content
// files without Astro. src/content.config.ts binds them to their loaders.
import { z } from "astro/zod";
import { TIER_KEYS, TOP_UP_KEYS } from "../../contract/product-ids.ts";

/** Which of the two id sets of contract/product-ids.ts an entry belongs to (spec section 3). */
export const idSetSchema = z.enum(["test", "live"]);

export const tierKeySchema = z.enum(TIER_KEYS);

/** One line of a plan card's benefit list. */
export const benefitSchema = z.object({
  /** What the visitor gets, e.g. "API access with your bearer token". */
  name: z.string().min(1),
  /** Whether this tier includes it; false shows a not-included mark, e.g. true. */
  included: z.boolean(),
});

/** The local plan information of one tier, as written once in plans.yaml (keyed by tier). */
export const planCopySchema = z.object({
  /** Display name, e.g. "Tier A". */
  name: z.string().regex(/^Tier [A-E]$/),
  /** The period label under the price, e.g. "per month". */
  recurring_period: z.string().min(1),
  /** The subscribe button's label, e.g. "Subscribe now". */
  cta_text: z.string().min(1),
  /** One sentence saying who the tier is for, e.g. "For trying the API on a real project." */
  description: z.string().min(1),
  /** A short ribbon on the card, e.g. "Recommended"; omit for none. */
  badge: z.string().min(1).optional(),
  /** The benefit list with included / not-included marks, e.g. [{ name: "...", included: true }]. */
  benefits: z.array(benefitSchema).min(1),
});

export const planCopyFileSchema = z.record(tierKeySchema, planCopySchema);

/** A `plans` entry: the local plan information of one product id (its `id`, e.g. "prod_test_tier_a"). */
export const planSchema = planCopySchema.extend({
  /** The tier the product sells, e.g. "A". */
  tier: tierKeySchema,
  /** The environment whose id set holds the product id, e.g. "test". */
  id_set: idSetSchema,
});

/** A `topUps` entry: the local information of one top-up product id (its `id`, e.g. "prod_test_topup_500"). */
export const topUpSchema = z.object({
  /** Credits the pack adds, e.g. 500. */
  token_amount: z.union([z.literal(500), z.literal(1000)]),
  /** Display name, e.g. "500 credit pack". */
  name: z.string().min(1),
  /** The spec's wording, e.g. "500 credits at 0.1 EUR per credit, expiring in 6 months". */
  description: z.string().min(1),
  /** Key of the pack in contract/catalogue.ts, e.g. "500". */
  key: z.enum(TOP_UP_KEYS),
  /** The environment whose id set holds the product id, e.g. "live". */
  id_set: idSetSchema,
});

/** Position in the content file, numbered by the loader (parseOrderedYamlList), e.g. 0. */
const fileOrder = z.number().int().nonnegative();

/** A `faq` entry (its `id`, e.g. "credit-expiry"). */
export const faqSchema = z.object({
  /** The question as a customer would ask it, e.g. "Do my credits expire?" */
  question: z.string().min(1).endsWith("?"),
  /** The answer in plain sentences, e.g. "Subscription credits expire one month after ..." */
  answer: z.string().min(1),
  order: fileOrder,
});

export const siteLinkGroupSchema = z.enum(["help", "legal", "social"]);

/** A `siteLinks` entry (its `id`, e.g. "help-centre"): an external page the operator runs. */
export const siteLinkSchema = z.object({
  /** The link text, e.g. "Helpcenter". */
  label: z.string().min(1),
  /** Absolute https address, e.g. "https://help.example.com". */
  href: z.url({ protocol: /^https$/ }),
  /** Where the footer and mobile menu list it, e.g. "help". */
  group: siteLinkGroupSchema,
  order: fileOrder,
});
