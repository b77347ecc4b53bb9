// The product's identity as titles, the logo and Open Graph tags show it.
//
// OPERATOR: the brand name lives in contract/brand.ts (mails and API docs use it too); set the
// tagline and the generation API's address here.
import { PRODUCT_NAME } from "../../contract/brand.ts";

export const SITE = {
  /** Brand name, e.g. in "Plans · GenAI Studio". */
  name: PRODUCT_NAME,
  /** One line under the name on the home page and in social previews. */
  tagline: "AI image and video generation through one simple API",
  /** The spec's support promise (section 1). */
  supportPromise: "E-mail reply within 1 hour, 8:00–20:00 CEST",
  /**
   * OPERATOR: the base URL of the generation API (the separate service customers' programs call
   * with their API keys), shown in the 'Using your key' example on /profile/api-keys.
   */
  generationApiUrl: "https://api.example.com/v1",
} as const;

/** A page's <title>: "Plans · GenAI Studio"; the home page uses the bare name with the tagline. */
export function pageTitle(title: string | undefined): string {
  return title ? `${title} · ${SITE.name}` : `${SITE.name} · ${SITE.tagline}`;
}
