// Lists of content entries in the order they are written: the FAQ, the credit costs, the links.
import { load } from "js-yaml";

/**
 * Parses a YAML list and numbers its items in file order (`order: 0, 1, ...`). Astro's data store
 * hands entries back sorted by id, not in file order, and lists such as the FAQ are written in
 * the order visitors should read them.
 */
export function parseOrderedYamlList(text: string): Array<Record<string, unknown>> {
  const data = load(text);
  if (!Array.isArray(data)) throw new Error("An ordered content file must hold a YAML list");
  return data.map((item: Record<string, unknown>, order) => ({ ...item, order }));
}

/** Entries sorted back into file order (see parseOrderedYamlList). */
export function inFileOrder<T extends { data: { order: number } }>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => a.data.order - b.data.order);
}
