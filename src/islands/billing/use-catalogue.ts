// A catalogue store as an island shows it: its answer, and whether it has failed for good (not
// while a retry is on its way). Subscribing starts the read; see stores/catalogue.ts.
import type { FetcherStore } from "@nanostores/query";
import { useStore } from "@nanostores/react";
import { type CatalogueView, catalogueView } from "../../stores/catalogue.ts";

export function useCatalogue<T>(store: FetcherStore<T>): CatalogueView<T> {
  return catalogueView(store, useStore(store));
}
