// GET /.well-known/jwks.json: the public keys a generation service verifies access tokens with,
// without any secret of ours.
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { verifiedUser } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_JWT } from "../../testing/test-app.ts";

describe("the JWKS", () => {
  const ctx = useTestApp("pglite");

  it("publishes the public signing key with its kid, cacheable, and tokens verify with it alone", async () => {
    const res = await ctx.t.app.request("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/jwk-set+json");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    const jwks = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toEqual([
      {
        kty: "OKP",
        crv: "Ed25519",
        x: expect.any(String),
        kid: TEST_JWT.keys.current.kid,
        alg: "EdDSA",
        use: "sig",
      },
    ]);
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);

    const ann = await verifiedUser(ctx.t, "ann");
    expect(decodeProtectedHeader(ann.accessToken)).toMatchObject({
      alg: "EdDSA",
      kid: TEST_JWT.keys.current.kid,
    });
    // What the generation service does: verify locally with the published keys.
    const { payload } = await jwtVerify(ann.accessToken, createLocalJWKSet(jwks as never), {
      issuer: TEST_JWT.issuer,
      audience: TEST_JWT.audience,
      currentDate: ctx.t.clock.now(),
    });
    expect(payload.sub).toBe(ann.id);
  });
});
