// Typed reads of the collections for .astro components (Astro-only: imports astro:content).
import { type CollectionEntry, getCollection } from "astro:content";
import { inFileOrder } from "./order.ts";

export type SiteLink = CollectionEntry<"siteLinks">["data"] & { id: string };

/** Every operator-set external link, in file order. */
export async function siteLinks(): Promise<SiteLink[]> {
  return inFileOrder(await getCollection("siteLinks")).map((e) => ({ id: e.id, ...e.data }));
}

/** One external link by id; a missing id fails the build rather than rendering a dead link. */
export async function siteLink(id: string): Promise<SiteLink> {
  const link = (await siteLinks()).find((l) => l.id === id);
  if (!link) throw new Error(`src/content/site-links.yaml has no link with id "${id}"`);
  return link;
}

/** The links of one footer / mobile-menu group, in file order. */
export async function siteLinkGroup(group: SiteLink["group"]): Promise<SiteLink[]> {
  return (await siteLinks()).filter((l) => l.group === group);
}
