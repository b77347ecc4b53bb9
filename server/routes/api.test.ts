// Behaviour every /v1 answer shares: JSON errors, CORS, headers, the OpenAPI document and its docs page.
import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { useTestApp } from "../testing/suite.ts";
import { createTestApp, TEST_PORTAL_URL } from "../testing/test-app.ts";
import { DOCS_CSP } from "./docs/routes.ts";

const CONTRACT_PATHS = [
  "/v1/token",
  "/v1/logout",
  "/v1/logout/all",
  "/v1/reauth",
  "/v1/reauth/passkey-options",
  "/v1/token/mfa",
  "/v1/users/me/mfa",
  "/v1/users/me/mfa/totp",
  "/v1/users/me/mfa/totp/confirm",
  "/v1/users/me/mfa/recovery-codes",
  "/v1/users/me/password",
  "/v1/users/me/security-events",
  "/v1/users/me/export",
  "/v1/users/me/email",
  "/v1/users/me/email/revert-review",
  "/v1/users/me/email/pending",
  "/v1/user/confirm-email",
  "/v1/users/me/passkeys",
  "/v1/users/me/passkeys/options",
  "/v1/users/me/passkeys/{id}",
  "/v1/passkeys/options",
  "/v1/token/passkey",
  "/v1/api-keys/revoke-all",
  "/v1/register",
  "/v1/users/me",
  "/v1/user/password-reset-request",
  "/v1/user/password-reset-check/{token}",
  "/v1/user/password-reset",
  "/v1/user/resend-email-verification",
  "/v1/user/verify-email",
  "/v1/subscription/products",
  "/v1/top-up/products",
  "/v1/create-checkout-session",
  "/v1/create-top-up-checkout",
  "/v1/update-subscription",
  "/v1/cancel-subscription",
  "/v1/webhooks/stripe",
  "/v1/credits/ledger",
  "/v1/credits/consume",
  "/v1/api-keys",
  "/v1/api-keys/{id}",
  "/v1/introspect",
  "/v1/usage",
  "/v1/usage.csv",
  "/v1/users/me/low-balance-alert",
  "/v1/billing/invoices",
  "/v1/billing/invoices/{id}",
  "/v1/billing/invoices/{id}/pdf",
  "/v1/billing/details",
  "/v1/billing/auto-top-up",
  "/v1/billing/auto-top-up/consent-text",
  "/v1/billing/payment-method",
  "/v1/billing/payment-method/setup",
  "/v1/billing-portal-session",
  "/.well-known/jwks.json",
  // ORGANISATIONS.md: organisations, their members and invitations.
  "/v1/orgs",
  "/v1/orgs/{id}",
  "/v1/orgs/{id}/members",
  "/v1/orgs/{id}/members/{user_id}",
  "/v1/orgs/{id}/transfer-ownership",
  "/v1/orgs/{id}/invitations",
  "/v1/orgs/{id}/invitations/{invitation_id}",
  "/v1/orgs/{id}/invitations/{invitation_id}/resend",
  "/v1/orgs/{id}/activity",
  "/v1/invitations/{token}",
  "/v1/invitations/{token}/accept",
  // OPERATIONS.md: the operator console.
  "/v1/admin/customers",
  "/v1/admin/customers/{id}",
  "/v1/admin/customers/{id}/ledger",
  "/v1/admin/customers/{id}/organizations",
  "/v1/admin/customers/{id}/payments",
  "/v1/admin/customers/{id}/usage",
  "/v1/admin/customers/{id}/audit",
  "/v1/admin/customers/{id}/credits",
  "/v1/admin/customers/{id}/subscription/cancel",
  "/v1/admin/customers/{id}/disable",
  "/v1/admin/customers/{id}/enable",
  "/v1/admin/customers/{id}/dispute-hold/clear",
  "/v1/admin/customers/{id}/role",
  "/v1/admin/customers/{id}/emails",
  "/v1/admin/api-keys/{id}",
  "/v1/admin/payments/{id}/refund",
  "/v1/admin/audit",
  "/v1/admin/audit.csv",
  "/v1/admin/reports/vat",
  "/v1/admin/reports/vat.csv",
  "/v1/admin/metrics",
  "/v1/admin/orgs",
  "/v1/admin/orgs/{id}",
  "/v1/admin/orgs/{id}/audit",
  "/v1/admin/orgs/{id}/credits",
  "/v1/admin/orgs/{id}/disable",
  "/v1/admin/orgs/{id}/dispute-hold/clear",
  "/v1/admin/orgs/{id}/enable",
  "/v1/admin/orgs/{id}/ledger",
  "/v1/admin/orgs/{id}/members",
  "/v1/admin/orgs/{id}/owner",
  "/v1/admin/orgs/{id}/auto-top-up",
  "/v1/admin/orgs/{id}/auto-top-up/off",
  "/v1/admin/orgs/{id}/payments",
  "/v1/admin/orgs/{id}/subscription/cancel",
  "/v1/admin/orgs/{id}/usage",
];

describe.each(TEST_DATABASES)("the /v1 API as a whole (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it.each([
    ["GET", "/v1/nope"],
    ["POST", "/v1/users/me"],
    ["DELETE", "/v1/register"],
    ["GET", "/v1"],
  ])("%s %s is a JSON 404", async (method, path) => {
    const res = await ctx.t.app.request(path, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ detail: DETAIL.notFound });
  });

  it("routes every request with one regular expression, not a trie searched per request", async () => {
    // Hono's router takes the fastest of its routers whose patterns fit every route. A route whose
    // parameter shares a place with another route's fixed segment sends every request of the API
    // to the slower one (issue 35: about 7 µs a request, decision 040); such routes live in an application of
    // their own (checkout/page.ts checkoutApplication).
    expect((await ctx.t.app.request("/healthz")).status).toBe(200);
    const router = ctx.t.app.router as unknown as { activeRouter: { name: string } };
    expect(router.activeRouter.name).toBe("RegExpRouter");
  });

  it("serves the local checkout's pages from their own application", async () => {
    const page = await ctx.t.app.request("/_checkout/cs_test_unknown");
    expect(page.status).toBe(404);
    expect(await page.text()).toContain("This checkout session does not exist.");
    const setup = await ctx.t.app.request("/_checkout/setup/unknown");
    expect(setup.status).toBe(404);
    expect(await setup.text()).toContain("This link does not exist. Start again from Billing.");
    const elsewhere = await ctx.t.app.request("/_checkout/cs_test_unknown/elsewhere/deeper");
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await elsewhere.text()).toContain("This checkout page does not exist.");
    const huge = await ctx.t.app.request("/_checkout/cs_test_unknown", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `name=${"x".repeat(17 * 1024)}`,
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain("This form sent more than a checkout form holds.");
  });

  it("sends the strict API policy and the security headers on JSON answers", async () => {
    const res = await ctx.t.app.request("/v1/users/me");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  describe("CORS", () => {
    it("lets the configured portal origin call the API, with the Authorization header", async () => {
      const res = await ctx.t.app.request("/v1/users/me", {
        method: "OPTIONS",
        headers: {
          Origin: TEST_PORTAL_URL,
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "authorization",
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(TEST_PORTAL_URL);
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    });

    it("answers a request without Origin (a program, the generation service) with no CORS headers, varying by Origin", async () => {
      const res = await ctx.t.app.request("/v1/subscription/products");
      expect(res.status).toBe(200);
      expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
      expect(res.headers.get("vary")).toContain("Origin");
      expect(await res.json()).toHaveProperty("data");
    });

    it("does not let another origin read answers", async () => {
      const res = await ctx.t.app.request("/v1/users/me", { headers: { Origin: "https://evil.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("allows every configured origin (portal on a CDN and on the API host)", async () => {
      const app = createTestApp(ctx.database.db, {
        corsOrigins: ["https://cdn.example.net", TEST_PORTAL_URL],
      }).app;
      const res = await app.request("/v1/users/me", { headers: { Origin: "https://cdn.example.net" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("https://cdn.example.net");
      expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
    });
  });

  describe("OpenAPI", () => {
    it("documents every account and billing call of the contract, from the contract's schemas", async () => {
      const res = await ctx.t.app.request("/v1/openapi.json");
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
        components: {
          schemas: Record<string, { properties?: Record<string, { pattern?: string; maxLength?: number }> }>;
          securitySchemes: Record<string, unknown>;
        };
      };
      expect(doc.openapi).toBe("3.1.0");
      expect(Object.keys(doc.paths).sort()).toEqual([...CONTRACT_PATHS].sort());
      expect(Object.keys(doc.paths["/v1/token"]?.post?.responses ?? {}).sort()).toEqual([
        "200",
        "400",
        "403",
        "413",
        "422",
        "429",
      ]);
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
      // The password rules reach the document from the shared schema.
      expect(doc.components.schemas.RegisterRequest?.properties?.password?.maxLength).toBe(30);
      expect(doc.components.schemas.User?.properties).toHaveProperty("credit_balance");
      // What Redocly's recommended rules ask of every operation (npm run lint checks the whole set).
      const operations = Object.values(doc.paths).flatMap((item) => Object.values(item)) as Array<{
        operationId?: string;
        security?: unknown[];
        responses: Record<string, { headers?: Record<string, unknown> }>;
      }>;
      expect(operations.every((op) => typeof op.operationId === "string" && Array.isArray(op.security))).toBe(
        true,
      );
      for (const op of operations) {
        if (op.responses["429"]) expect(op.responses["429"].headers).toHaveProperty("Retry-After");
      }
      // What Spectral's OWASP rules ask (npm run lint, .spectral.yaml): anyone's calls say so with an
      // empty requirement, never by leaving security out; every id in a path is bounded.
      const publicIds = operations
        .filter((op) => JSON.stringify(op.security) === "[{}]")
        .map((op) => op.operationId);
      expect(publicIds).toEqual(expect.arrayContaining(["login", "register", "resetPassword", "getJwks"]));
      expect(operations.some((op) => op.security?.length === 0)).toBe(false);
      const pathParameters = Object.values(doc.paths)
        .flatMap((item) => Object.values(item))
        .flatMap(
          (op) => (op as { parameters?: { in: string; schema: { maxLength?: number } }[] }).parameters ?? [],
        )
        .filter((parameter) => parameter.in === "path");
      expect(pathParameters.length).toBeGreaterThan(10);
      expect(pathParameters.every((parameter) => (parameter.schema.maxLength ?? 0) > 0)).toBe(true);
      expect(doc.components.schemas.LoginForm?.properties?.password?.maxLength).toBe(256);
    });

    it("serves the docs page under its own policy, with Swagger UI from this origin", async () => {
      const res = await ctx.t.app.request("/v1/docs");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-security-policy")).toBe(DOCS_CSP);
      const html = await res.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets) {
        expect(asset.startsWith("/v1/")).toBe(true);
        const file = await ctx.t.app.request(asset);
        expect(file.status).toBe(200);
      }
      const init = await (await ctx.t.app.request("/v1/docs/init.js")).text();
      expect(init).toContain('"/v1/openapi.json"');
      expect(init).toContain("validatorUrl: null");
    });

    it("serves only the listed Swagger UI files", async () => {
      const html = await (await ctx.t.app.request("/v1/docs")).text();
      const css = html.match(/href="([^"]+swagger-ui\.css)"/)?.[1] ?? "";
      const dir = css.slice(0, css.lastIndexOf("/"));
      for (const name of ["package.json", "swagger-ui.js.map", "..%2F..%2Fpackage.json", "index.html"]) {
        expect((await ctx.t.app.request(`${dir}/${name}`)).status).toBe(404);
      }
    });
  });

  it("answers /healthz", async () => {
    expect(await (await ctx.t.app.request("/healthz")).json()).toEqual({ status: "ok" });
  });
});
