// No API key or service key in plain text: neither in any table of the database nor in any log line,
// after every call that handles one (create, list, introspect, consume, revoke, failures).
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES, tableNames } from "../../../tests/fixtures/test-db.ts";
import {
  bearer,
  consumeRequest,
  createKey,
  introspectRequest,
  serviceKey,
} from "../../testing/api-access.ts";
import { getJson, verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";

describe.each(TEST_DATABASES)("keys at rest (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("stores and logs neither a key nor its secret part", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const key = await createKey(ctx.t, ann.accessToken, { name: "leak check" });
    const service = await serviceKey(ctx.t);
    await getJson(ctx.t.app, "/v1/api-keys", ann.accessToken);
    await introspectRequest(ctx.t, service, key.key);
    await introspectRequest(ctx.t, `${service.slice(0, -1)}x`, key.key);
    await consumeRequest(ctx.t, service, {
      api_key_id: key.id,
      feature: "comic",
      people: "one",
      idempotency_key: "1",
    });
    await consumeRequest(ctx.t, key.key, {
      api_key_id: key.id,
      feature: "comic",
      people: "one",
      idempotency_key: "2",
    });
    await ctx.t.app.request(`/v1/api-keys/${key.id}`, { method: "DELETE", headers: bearer(ann.accessToken) });
    await ctx.t.tasks.idle();

    const names = await tableNames(ctx.database.db);
    expect(names).toEqual(expect.arrayContaining(["api_keys", "service_keys"]));
    let dump = "";
    for (const name of names) {
      const rows = await ctx.database.db.execute(
        sql.raw(`select row_to_json(t)::text as row from "${name}" t`),
      );
      dump += JSON.stringify(rowsOf(rows));
    }
    const logs = ctx.t.logs.join("\n");
    expect(dump).toContain(key.id);
    for (const secret of [key.key, service]) {
      const secretPart = secret.slice(16, 59);
      expect(secretPart).toHaveLength(43);
      expect(dump).not.toContain(secretPart);
      expect(logs).not.toContain(secretPart);
    }
    expect(logs.length).toBeGreaterThan(0);
  });
});
