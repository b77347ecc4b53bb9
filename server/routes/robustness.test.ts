// Whatever a client sends, the API answers with a JSON 4xx (or a success), never a 5xx.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { useTestApp } from "../testing/suite.ts";

const POST_PATHS = [
  "/v1/token",
  "/v1/register",
  "/v1/user/password-reset-request",
  "/v1/user/password-reset",
  "/v1/user/resend-email-verification",
  "/v1/user/verify-email",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "text/plain",
  "",
];
const HIGH = {
  tokenPerMinute: 100_000,
  registerPerMinute: 100_000,
  emailPerMinute: 100_000,
  emailIpPerMinute: 100_000,
};

describe.each(TEST_DATABASES)("robustness (%s)", (kind) => {
  const ctx = useTestApp(kind, { limits: HIGH });

  async function expectNo5xx(res: Response) {
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
    const body = (await res.json()) as { detail?: unknown };
    if (res.status >= 400) expect(body.detail).toBeDefined();
  }

  it("never answers 5xx to arbitrary JSON values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_PATHS), fc.jsonValue(), async (path, value) => {
        const res = await ctx.t.app.request(path, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(value),
        });
        await expectNo5xx(res);
      }),
      { numRuns: 60 },
    );
  });

  it("never answers 5xx to arbitrary bytes under any content type", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POST_PATHS),
        fc.constantFrom(...CONTENT_TYPES),
        fc.string({ unit: "binary", maxLength: 300 }),
        async (path, type, body) => {
          const res = await ctx.t.app.request(path, {
            method: "POST",
            headers: type ? { "Content-Type": type } : {},
            body,
          });
          await expectNo5xx(res);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("never answers 5xx to odd reset-check tokens or Authorization headers", async () => {
    for (const token of ["%", "%E0%A4%A", "%00", "..", "a%2Fb", "x".repeat(5000)]) {
      await expectNo5xx(await ctx.t.app.request(`/v1/user/password-reset-check/${token}`));
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (header) => {
        let res: Response;
        try {
          res = await ctx.t.app.request("/v1/users/me", { headers: { Authorization: header } });
        } catch {
          return; // not a valid header value at all: fetch refuses it before the app sees it
        }
        await expectNo5xx(res);
      }),
      { numRuns: 60 },
    );
  });
});
