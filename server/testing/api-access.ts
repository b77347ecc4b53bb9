// Helpers for tests of API access: a customer's API key, a service key, and the generation
// service's two calls made the way it makes them.
import { expect } from "vitest";
import type { CreatedApiKey } from "../../contract/api-keys.ts";
import { createServiceKey, type ServiceScope } from "../api-access/service-keys.ts";
import { fromIp, postForm, postJson } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export async function createKey(t: TestApp, accessToken: string, body: Record<string, unknown> = {}) {
  const res = await postJson(t.app, "/v1/api-keys", { name: "My program", ...body }, bearer(accessToken));
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as CreatedApiKey;
}

/** A service key with the given scopes, made the way `npm run service-key -- create` makes it. */
export async function serviceKey(
  t: TestApp,
  scopes: ServiceScope[] = ["introspect", "credits:consume"],
): Promise<string> {
  return (await createServiceKey(t.deps.db, "generation-api", scopes, t.clock.now())).key;
}

/** Asked once the app has heard of every change committed before (test-app.ts, heardAll). */
export async function introspectRequest(t: TestApp, service: string, token: string, ip = fromIp()) {
  await t.heardAll();
  return postForm(t.app, "/v1/introspect", { token }, { ...bearer(service), ...ip });
}

export async function introspect(t: TestApp, service: string, token: string) {
  const res = await introspectRequest(t, service, token);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

export function consumeRequest(t: TestApp, credential: string, body: Record<string, unknown>) {
  return postJson(t.app, "/v1/credits/consume", body, { ...bearer(credential), ...fromIp() });
}
