// The API-key write calls given a body that is not JSON (API-CONTRACT.md: a body that is not JSON, or
// the wrong content type, is a 422 with the reason, never a 500): POST /v1/api-keys refuses it and
// makes no key, and so does staff's DELETE /v1/admin/api-keys/{id}; DELETE /v1/api-keys/{id} and
// POST /v1/api-keys/revoke-all read no body, and answer as without one (the document says so).
import { describe, expect, it } from "vitest";
import { BODY_ERRORS } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { staffMember } from "../../testing/admin.ts";
import { bearer, createKey } from "../../testing/api-access.ts";
import { verifiedUser } from "../../testing/api-client.ts";
import { createTeam, member } from "../../testing/org-calls.ts";
import { useTestApp } from "../../testing/suite.ts";
import { NO_LIMITS } from "../../testing/test-app.ts";

const NOT_JSON = [{ loc: ["body"], msg: BODY_ERRORS.notJson, type: "json_invalid" }];
const WRONG_TYPE = [{ loc: ["body"], msg: BODY_ERRORS.wrongJsonContentType, type: "content_type" }];

describe.each(TEST_DATABASES)("API-key writes with a body that is not JSON (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  const send = (method: string, path: string, token: string, body: string, headers: Record<string, string>) =>
    ctx.t.app.request(path, { method, headers: { ...bearer(token), ...headers }, body });
  /** The answer's status, that it is JSON, and its `detail`. */
  const answerOf = async (res: Response) => ({
    status: res.status,
    json: res.headers.get("content-type")?.startsWith("application/json") ?? false,
    detail: ((await res.json()) as { detail: unknown }).detail,
  });
  const keysOf = async (token: string, org?: string) => {
    const res = await ctx.t.app.request("/v1/api-keys", {
      headers: { ...bearer(token), ...(org ? { "X-Organization": org } : {}) },
    });
    return ((await res.json()) as { data: unknown[] }).data;
  };

  it("POST /v1/api-keys answers 422 with the reason to broken JSON, the wrong content type or none, and makes no key", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const JSON_TYPE = { "Content-Type": "application/json" };
    for (const [body, headers, detail] of [
      ['{"name": "Render farm"', JSON_TYPE, NOT_JSON],
      ["name=Render+farm", JSON_TYPE, NOT_JSON],
      ["", JSON_TYPE, NOT_JSON],
      ['{"name": "Render farm"}', { "Content-Type": "text/plain" }, WRONG_TYPE],
      ["name=Render+farm", { "Content-Type": "application/x-www-form-urlencoded" }, WRONG_TYPE],
      ['{"name": "Render farm"}', {}, WRONG_TYPE],
    ] as const) {
      const answer = await answerOf(await send("POST", "/v1/api-keys", ann.accessToken, body, headers));
      expect(answer, `${JSON.stringify(headers)} ${body}`).toEqual({ status: 422, json: true, detail });
    }
    expect(await keysOf(ann.accessToken)).toEqual([]);
  });

  it("POST /v1/api-keys in an organisation: broken JSON is a 422 for an owner and a developer alike", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const org = await createTeam(ctx.t, ann);
    const dev = await member(ctx.t, org, ann, "dev", "developer");
    for (const who of [ann, dev]) {
      const res = await send("POST", "/v1/api-keys", who.accessToken, '{"name": "Shared", "shared": true', {
        "Content-Type": "application/json",
        "X-Organization": org.id,
      });
      expect(await answerOf(res), who.username).toEqual({ status: 422, json: true, detail: NOT_JSON });
    }
    expect(await keysOf(ann.accessToken, org.id)).toEqual([]);
  });

  it("DELETE /v1/api-keys/{id} and POST /v1/api-keys/revoke-all take no body: one that is not JSON is ignored", async () => {
    const ann = await verifiedUser(ctx.t, "ann");
    const first = await createKey(ctx.t, ann.accessToken, { name: "First" });
    await createKey(ctx.t, ann.accessToken, { name: "Second" });
    const broken = { "Content-Type": "application/json" };
    const revoked = await send("DELETE", `/v1/api-keys/${first.id}`, ann.accessToken, "{not json", broken);
    expect(revoked.status).toBe(204);
    const again = await send("DELETE", `/v1/api-keys/${first.id}`, ann.accessToken, "{not json", broken);
    expect((await answerOf(again)).status).toBe(404);
    const all = await send("POST", "/v1/api-keys/revoke-all", ann.accessToken, "{not json", broken);
    expect(all.status).toBe(200);
    expect(await all.json()).toEqual({ revoked: 1 });
    expect(await keysOf(ann.accessToken)).toEqual([]);
  });

  it("DELETE /v1/admin/api-keys/{id} (staff, with a reason) answers 422 to broken JSON and leaves the key", async () => {
    const cora = await verifiedUser(ctx.t, "cora");
    const sue = await staffMember(ctx.t, "sue", "support");
    const key = await createKey(ctx.t, cora.accessToken, { name: "Kept" });
    const res = await send("DELETE", `/v1/admin/api-keys/${key.id}`, sue.accessToken, '{"reason": "leak', {
      "Content-Type": "application/json",
    });
    expect(await answerOf(res)).toEqual({ status: 422, json: true, detail: NOT_JSON });
    expect(await keysOf(cora.accessToken)).toHaveLength(1);
  });
});
