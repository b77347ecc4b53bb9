// Writes the API's OpenAPI document, as GET /v1/openapi.json serves it, to OPENAPI_FILE: `npm run
// lint` then checks it with Redocly CLI's recommended rules (redocly.yaml; telemetry and update
// checks off, as the machines this runs on reach nothing but the npm registry).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openPglite } from "../server/db/client.ts";
import { createTestApp } from "../server/testing/test-app.ts";

/** The document the running server would serve (the routes are the same; no table is read). */
export async function openApiDocument(): Promise<unknown> {
  const database = await openPglite(undefined);
  try {
    const res = await createTestApp(database.db).app.request("/v1/openapi.json");
    return await res.json();
  } finally {
    await database.close();
  }
}

export const OPENAPI_FILE = join("node_modules", ".cache", "openapi", "openapi.json");

if (import.meta.main) {
  mkdirSync(dirname(OPENAPI_FILE), { recursive: true });
  writeFileSync(OPENAPI_FILE, JSON.stringify(await openApiDocument(), null, 2));
}
