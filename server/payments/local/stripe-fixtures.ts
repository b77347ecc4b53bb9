// Stripe's own example objects (fixtures/stripe-fixtures3.json, see SOURCE.md there): the base every
// event the local checkout sends is built on, so it carries every field a real Stripe event has.
import { readFileSync } from "node:fs";

type Resources = Record<string, Record<string, unknown> | undefined>;
let resources: Resources | null = null;

/** A fresh copy of Stripe's example object of `resource` ("checkout.session", "invoice", ...). */
export function stripeFixture(resource: string): Record<string, unknown> {
  resources ??= (
    JSON.parse(readFileSync(new URL("./fixtures/stripe-fixtures3.json", import.meta.url), "utf8")) as {
      resources: Resources;
    }
  ).resources;
  const object = resources[resource];
  if (!object) throw new Error(`Stripe's fixtures have no ${resource}`);
  return structuredClone(object);
}
