// Whatever a client sends, the API answers JSON with `detail` and a 4xx (or a success), never a 5xx.
// The operations come from the OpenAPI document, so an endpoint added later is fuzzed too; each is
// fed generated bodies (wrong types, missing and extra fields, JSON that is not an object, broken
// JSON, invalid UTF-8, empty) under every content type, with and without a valid access token.
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { MAX_BODY_BYTES } from "../http/api-middleware.ts";
import { signPayload } from "../payments/stripe/signature.ts";
import { staffMember } from "../testing/admin.ts";
import { verifiedUser } from "../testing/api-client.ts";
import { subscriptionPurchase, topUpPurchase } from "../testing/purchase-events.ts";
import { useTestApp } from "../testing/suite.ts";
import { NO_LIMITS, TEST_WEBHOOK_SECRET, type TestApp } from "../testing/test-app.ts";

interface Operation {
  method: "GET" | "POST";
  /** The OpenAPI path, with `{param}` placeholders. */
  path: string;
  /** The content type the operation documents for its body, if it takes one. */
  contentType: string | undefined;
  /** The body's documented field names. */
  fields: string[];
}

type Json = Record<string, unknown>;

/** Every operation of the OpenAPI document, with the field names of its request body. */
async function operations(t: TestApp): Promise<Operation[]> {
  const doc = (await (await t.app.request("/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Json }> } }>>;
    components: { schemas: Record<string, { properties?: Json }> };
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      // A body of several forms (oneOf) has the fields of all of them.
      const forms = ((media?.schema.oneOf as Json[] | undefined) ?? (media ? [media.schema] : [])).map(
        (form) => {
          const ref = (form.$ref as string | undefined)?.split("/").at(-1);
          return ref ? doc.components.schemas[ref] : (form as { properties?: Json });
        },
      );
      ops.push({
        method: method.toUpperCase() as Operation["method"],
        path,
        contentType,
        fields: [...new Set(forms.flatMap((schema) => Object.keys(schema?.properties ?? {})))],
      });
    }
  }
  return ops;
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/merge-patch+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "multipart/form-data",
  "text/plain",
  "application/xml",
  "",
];

/** Byte sequences that are not UTF-8: lone continuation bytes, overlongs, surrogates, truncations. */
const INVALID_UTF8 = [
  [0x80],
  [0xff, 0xfe],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
];

/** A value of some JSON type, often not the one the field wants. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom(
    "",
    " ",
    "a@b",
    "Abcdef1!",
    "<script>alert(1)</script>",
    "' or 1=1 --",
    "\u0000",
    "x".repeat(5000),
  ),
);

/** An object with the operation's fields, each present or missing, of any type, plus extra fields. */
function objectFor(fields: string[]) {
  return fc
    .tuple(
      fc.record(Object.fromEntries(fields.map((f) => [f, anyValue])), { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 12 }), anyValue, { maxKeys: 4 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

/** A body as bytes: JSON of the wrong shape, broken JSON, form text, invalid UTF-8 or nothing. */
function bodyFor(op: Operation): fc.Arbitrary<Uint8Array> {
  const utf8 = (s: string) => new TextEncoder().encode(s);
  return fc.oneof(
    objectFor(op.fields).map((o) => utf8(JSON.stringify(o))),
    fc.jsonValue().map((v) => utf8(JSON.stringify(v) ?? "")),
    fc.string({ unit: "binary", maxLength: 200 }).map(utf8),
    objectFor(op.fields).map((o) =>
      utf8(
        new URLSearchParams(
          Object.entries(o).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
        ).toString(),
      ),
    ),
    fc.tuple(objectFor(op.fields), fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([o, bad, at]) => {
      const text = utf8(JSON.stringify(o));
      const cut = at % (text.length + 1);
      return new Uint8Array([...text.slice(0, cut), ...bad, ...text.slice(cut)]);
    }),
    fc.constant(new Uint8Array()),
  );
}

/** A path parameter value: ordinary, encoded oddly, or long. */
const pathParam = fc.oneof(
  fc.string({ maxLength: 60 }).map(encodeURIComponent),
  fc.constantFrom("%", "%E0%A4%A", "%00", "..", "%2e%2e", "a%2Fb", "x".repeat(5000), "%F0%9F%98%80"),
);

async function expectJsonError(res: Response, context: string): Promise<void> {
  expect(res.status, context).toBeLessThan(500);
  // A CSV's one success is its file; every refusal is JSON like the rest.
  const csvHeader = [
    ["/v1/usage.csv", /^time,feature,/],
    ["/v1/admin/audit.csv", /^seq,at,actor_id,/],
    ["/v1/admin/reports/vat.csv", /^section,country,/],
  ] as const;
  const csv = csvHeader.find(([path]) => context.startsWith(path));
  if (res.status === 200 && csv) {
    expect(res.headers.get("content-type"), context).toBe("text/csv; charset=utf-8");
    expect(await res.text(), context).toMatch(csv[1]);
    return;
  }
  // JSON or a JSON-based type (the JWKS is application/jwk-set+json).
  expect(res.headers.get("content-type") ?? "", context).toMatch(/^application\/([\w.-]+\+)?json/);
  const body = (await res.json()) as { detail?: unknown };
  if (res.status >= 400) expect(body.detail, context).toBeDefined();
}

describe.each(TEST_DATABASES)("every /v1 endpoint under bad input (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: NO_LIMITS });
  let ops: Operation[];
  let bearer: string;

  beforeEach(async () => {
    ops = await operations(ctx.t);
    // An admin with credits and a paid plan, so guarded calls get as far as reading their bodies.
    bearer = (await staffMember(ctx.t, "fuzz", "admin")).accessToken;
  });

  it("the OpenAPI document lists every contract call (so the fuzzing reaches them all)", () => {
    const listed = ops.map((o) => `${o.method} ${o.path}`);
    expect(listed).toEqual(
      expect.arrayContaining([
        "POST /v1/token",
        "POST /v1/token/mfa",
        "GET /v1/users/me/mfa",
        "POST /v1/users/me/mfa/totp",
        "POST /v1/users/me/mfa/totp/confirm",
        "DELETE /v1/users/me/mfa/totp",
        "POST /v1/users/me/mfa/recovery-codes",
        "POST /v1/users/me/password",
        "GET /v1/users/me/security-events",
        "GET /v1/users/me/export",
        "DELETE /v1/users/me",
        "POST /v1/users/me/email",
        "POST /v1/user/confirm-email",
        "GET /v1/users/me/email/revert-review",
        "GET /v1/users/me/email",
        "DELETE /v1/users/me/email/pending",
        "GET /v1/users/me/passkeys",
        "POST /v1/users/me/passkeys/options",
        "POST /v1/users/me/passkeys",
        "DELETE /v1/users/me/passkeys/{id}",
        "POST /v1/passkeys/options",
        "POST /v1/token/passkey",
        "POST /v1/reauth",
        "POST /v1/reauth/passkey-options",
        "POST /v1/register",
        "GET /v1/users/me",
        "POST /v1/user/password-reset-request",
        "GET /v1/user/password-reset-check/{token}",
        "POST /v1/user/password-reset",
        "POST /v1/user/resend-email-verification",
        "POST /v1/user/verify-email",
        "GET /v1/subscription/products",
        "GET /v1/top-up/products",
        "POST /v1/create-checkout-session",
        "POST /v1/create-top-up-checkout",
        "POST /v1/update-subscription",
        "POST /v1/cancel-subscription",
        "POST /v1/webhooks/stripe",
        "GET /v1/credits/ledger",
        "POST /v1/credits/consume",
        "POST /v1/api-keys",
        "GET /v1/api-keys",
        "DELETE /v1/api-keys/{id}",
        "POST /v1/introspect",
        "GET /v1/billing/invoices",
        "GET /v1/billing/invoices/{id}",
        "GET /v1/billing/details",
        "POST /v1/billing-portal-session",
      ]),
    );
    // Every POST that takes a body documents it, so the generated bodies use its real field names.
    const bodiless = [
      "/v1/cancel-subscription",
      "/v1/webhooks/stripe",
      "/v1/billing-portal-session",
      "/v1/billing/payment-method/setup",
      "/v1/logout",
      "/v1/logout/all",
      "/v1/api-keys/revoke-all",
      "/v1/users/me/mfa/totp",
      "/v1/users/me/passkeys/options",
      "/v1/reauth/passkey-options",
      "/v1/orgs/{id}/invitations/{invitation_id}/resend",
      "/v1/invitations/{token}/accept",
    ];
    for (const op of ops.filter((o) => o.method === "POST" && !bodiless.includes(o.path))) {
      expect(op.fields.length, op.path).toBeGreaterThan(0);
    }
  });

  it("never answers 5xx to generated bodies, content types and credentials on any POST", async () => {
    const posts = ops.filter((o) => o.method === "POST");
    const cases = fc.constantFrom(...posts).chain((op) =>
      fc.record({
        op: fc.constant(op),
        body: bodyFor(op),
        type: fc.constantFrom(...(op.contentType ? [op.contentType] : []), ...CONTENT_TYPES),
        auth: fc.constantFrom("none", "valid", "garbage"),
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ op, body, type, auth }) => {
        const headers: Record<string, string> = type ? { "Content-Type": type } : {};
        if (auth === "valid") headers.Authorization = `Bearer ${bearer}`;
        if (auth === "garbage") headers.Authorization = "Bearer eyJhbGciOiJub25lIn0.e30.";
        const res = await ctx.t.app.request(op.path, { method: "POST", headers, body: body as BodyInit });
        await expectJsonError(res, `${op.path} ${type} ${auth}`);
      }),
      { numRuns: 400 },
    );
  });

  it("never answers 5xx to odd path parameters, query strings or Authorization headers on any GET", async () => {
    // Generated paths: openapi-backend's router matches some to an operation that Hono's router
    // answers 404 for (not a documented path at all). Those 404s are set aside; everything else
    // these requests get is judged as in every other API test.
    ctx.outsideDocument("generated path parameters and query strings", (broken) => broken.status === 404);
    const gets = ops.filter((o) => o.method === "GET" && !o.path.endsWith("openapi.json"));
    const cases = fc.record({
      op: fc.constantFrom(...gets),
      param: pathParam,
      query: fc.string({ maxLength: 60 }),
      auth: fc.oneof(
        fc.constant(`Bearer ${bearer}`),
        fc.string({ maxLength: 200 }),
        fc.string({ maxLength: 200 }).map((s) => `Bearer ${s}`),
      ),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ op, param, query, auth }) => {
        const path = `${op.path.replace(/{[^}]+}/g, param)}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`;
        let res: Response;
        try {
          res = await ctx.t.app.request(path, { headers: { Authorization: auth } });
        } catch {
          return; // not a valid header value at all: fetch refuses it before the app sees it
        }
        await expectJsonError(res, `${path} ${auth.slice(0, 40)}`);
      }),
      { numRuns: 200 },
    );
  });

  it("answers 413 with detail to a 1 MB body on every POST, announced or streamed", async () => {
    const mb = "x".repeat(1024 * 1024);
    for (const op of ops.filter((o) => o.method === "POST")) {
      const fields = op.fields.length > 0 ? op.fields : ["anything"];
      const json = JSON.stringify(Object.fromEntries(fields.map((f) => [f, mb])));
      const headers = {
        "Content-Type": op.contentType ?? "application/json",
        Authorization: `Bearer ${bearer}`,
      };
      const announced = await ctx.t.app.request(op.path, {
        method: "POST",
        headers: { ...headers, "Content-Length": String(json.length) },
        body: json,
      });
      expect(announced.status, op.path).toBe(413);
      expect(await announced.json()).toEqual({ detail: DETAIL.bodyTooLarge });
      // Chunked, with no Content-Length: the limit counts bytes as they arrive.
      const bytes = new TextEncoder().encode(json);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
          controller.close();
        },
      });
      const streamed = await ctx.t.app.request(op.path, {
        method: "POST",
        headers,
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(streamed.status, `${op.path} streamed`).toBe(413);
      expect(await streamed.json()).toEqual({ detail: DETAIL.bodyTooLarge });
    }
  });

  it("takes a body just under the limit as an ordinary (validated) request", async () => {
    const body = JSON.stringify({ email: `${"a".repeat(MAX_BODY_BYTES - 200)}@example.com` });
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const res = await ctx.t.app.request("/v1/user/password-reset-request", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect(res.status).toBe(422);
  });

  it("never answers 5xx to correctly signed webhook events whose fields are replaced with generated values", async () => {
    const user = await verifiedUser(ctx.t, "ann");
    const now = ctx.t.clock.now();
    const purchase = subscriptionPurchase(user.id, now);
    const events = [
      purchase.events.checkout,
      purchase.events.invoice,
      purchase.events.updated,
      topUpPurchase(user.id, now).checkout,
    ];
    // Every path to a leaf (or a whole object) in the real events: the places a broken or hostile
    // sender with the signing secret (a bug at the provider, a leaked secret) could put anything.
    const paths = (value: unknown, prefix: string[] = []): string[][] =>
      value !== null && typeof value === "object"
        ? [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))]
        : [prefix];
    const cases = fc
      .constantFrom(...events)
      .chain((build) => {
        const event = build() as unknown as Json;
        const all = paths(event).filter((p) => p.length > 0);
        return fc.record({
          event: fc.constant(event),
          edits: fc.array(fc.tuple(fc.constantFrom(...all), fc.oneof(anyValue, fc.jsonValue())), {
            minLength: 1,
            maxLength: 3,
          }),
        });
      })
      .map(({ event, edits }) => {
        const copy = structuredClone(event);
        for (const [path, value] of edits) {
          let target = copy as Json;
          for (const key of path.slice(0, -1)) {
            const next = target[key];
            if (next === null || typeof next !== "object") break;
            target = next as Json;
          }
          target[path.at(-1) as string] = value;
        }
        return copy;
      });
    await fc.assert(
      fc.asyncProperty(cases, async (event) => {
        const body = JSON.stringify(event);
        const header = signPayload(body, TEST_WEBHOOK_SECRET, Math.floor(ctx.t.clock.now().getTime() / 1000));
        const res = await ctx.t.app.request("/v1/webhooks/stripe", {
          method: "POST",
          headers: { "Content-Type": "application/json", "Stripe-Signature": header },
          body,
        });
        expect([200, 400], body.slice(0, 300)).toContain(res.status);
        await expectJsonError(res, body.slice(0, 300));
      }),
      { numRuns: 300 },
    );
    // Whatever was accepted, the books still balance: the balance is never negative.
    const me = (await (
      await ctx.t.app.request("/v1/users/me", { headers: { Authorization: `Bearer ${user.accessToken}` } })
    ).json()) as { credit_balance: number };
    expect(me.credit_balance).toBeGreaterThanOrEqual(0);
  });
});
