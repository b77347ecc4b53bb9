// GET /.well-known/jwks.json (RFC 7517): the public keys access tokens verify with, for the
// generation service. Public and the same for everyone; after a rotation it still lists the previous
// key, so a few minutes of caching is safe. Served at the origin's root, documented with /v1's calls.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Handler } from "hono";
import type { AccessTokens } from "../../auth/access-tokens.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { PUBLIC, type ROOT_PATHS } from "../../http/openapi.ts";

export const JWKS_PATH: (typeof ROOT_PATHS)[number] = "/.well-known/jwks.json";

export function jwksHandler(accessTokens: AccessTokens): Handler {
  const body = JSON.stringify(accessTokens.jwks);
  return () =>
    new Response(body, {
      headers: {
        "Content-Type": "application/jwk-set+json",
        "Cache-Control": "public, max-age=300",
        "Access-Control-Allow-Origin": "*",
      },
    });
}

/** Adds the JWKS to the OpenAPI document of `api` (whose prefix the docs route takes off again). */
export function documentJwks(api: OpenAPIHono<AppEnv>): void {
  api.openAPIRegistry.registerPath({
    method: "get",
    path: JWKS_PATH,
    operationId: "getJwks",
    security: PUBLIC,
    tags: ["generation service"],
    summary: "The public keys access tokens are signed with (RFC 7517), by kid",
    description: "Verify access tokens locally: accept only the listed keys' algorithms (EdDSA, ES256).",
    responses: {
      200: {
        description: "The key set (cacheable for 5 minutes)",
        content: {
          "application/jwk-set+json": {
            schema: {
              type: "object",
              required: ["keys"],
              properties: {
                keys: {
                  type: "array",
                  items: {
                    type: "object",
                    required: ["kty", "kid", "alg", "use"],
                    properties: {
                      kty: { type: "string", enum: ["OKP", "EC"] },
                      crv: { type: "string", enum: ["Ed25519", "P-256"] },
                      x: { type: "string" },
                      y: { type: "string" },
                      kid: { type: "string", description: "RFC 7638 thumbprint of the key" },
                      alg: { type: "string", enum: ["EdDSA", "ES256"] },
                      use: { type: "string", enum: ["sig"] },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  });
}
