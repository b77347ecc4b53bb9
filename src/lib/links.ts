// Attributes of every link the portal renders. External pages (help centre, docs, forms, legal,
// social) open in a new tab, and never get a handle on this window (`noopener`) or learn which
// page sent the visitor (`noreferrer`).

export interface ExternalLinkAttributes {
  target: "_blank";
  rel: "noopener noreferrer";
}

export const EXTERNAL_LINK_ATTRIBUTES: Readonly<ExternalLinkAttributes> = Object.freeze({
  target: "_blank",
  rel: "noopener noreferrer",
});

/** True for absolute http(s) URLs and protocol-relative ones: anything that leaves the portal. */
export function isExternalHref(href: string): boolean {
  return /^(?:https?:)?\/\//i.test(href.trim());
}

/** The attributes a link to `href` needs: the new-tab pair for external pages, none otherwise. */
export function linkAttributes(href: string): Partial<ExternalLinkAttributes> {
  return isExternalHref(href) ? { ...EXTERNAL_LINK_ATTRIBUTES } : {};
}

/** Screen-reader text appended to links that open a new tab (WCAG 3.2.5 advises warning). */
export const NEW_TAB_HINT = "(opens in a new tab)";
