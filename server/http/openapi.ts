// OpenAPI pieces generated from the contract's zod schemas. The contract is written in zod/mini
// (small in the browser), which @hono/zod-openapi's generator cannot read, so each schema is
// converted with zod's own JSON Schema generator (OpenAPI 3.1 uses JSON Schema 2020-12) and
// registered as a named component that routes reference.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Env, Handler, MiddlewareHandler } from "hono";
import * as z from "zod/mini";
import { detailSchema, validationErrorSchema } from "../../contract/account.ts";
import { VALIDATION } from "../../contract/messages.ts";

type Registry = OpenAPIHono["openAPIRegistry"];
type SchemaObject = Parameters<Registry["registerComponent"]>[2];

export interface SchemaDocs {
  /** A realistic example (Swagger UI otherwise invents values from the patterns). */
  example?: unknown;
  /** Descriptions of properties, by name. */
  properties?: Record<string, string>;
}

/** `{$ref}` to a component made from `schema`, registered on first use. */
export function schemaRef(
  registry: Registry,
  name: string,
  schema: z.ZodMiniType,
  io: "input" | "output" = "output",
  docs: SchemaDocs = {},
): { $ref: string } {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };
  if (docs.example !== undefined) json.examples = [docs.example];
  for (const [property, description] of Object.entries(docs.properties ?? {})) {
    const target = json.properties?.[property];
    if (target) target.description = description;
  }
  registry.registerComponent("schemas", name, json as SchemaObject);
  return { $ref: `#/components/schemas/${name}` };
}

/** The password rules in words: JSON Schema can show only one of the several patterns. */
export const PASSWORD_RULES = [
  VALIDATION.passwordTooShort,
  VALIDATION.passwordTooLong,
  VALIDATION.passwordUppercase,
  VALIDATION.passwordLowercase,
  VALIDATION.passwordNumber,
  VALIDATION.passwordSpecial,
].join("; ");

export function jsonContent(ref: { $ref: string }) {
  return { "application/json": { schema: ref } };
}

/** What a 429 answer carries besides its body: when to try again. */
const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds until the limit lets the next call through",
    schema: { type: "integer" as const, minimum: 1 },
  },
};

/** Standard error answers, by status, with their descriptions (a 429 declares its Retry-After). */
export function errorResponses(registry: Registry, statuses: Record<number, string>) {
  const detail = schemaRef(registry, "Detail", detailSchema);
  const validation = schemaRef(registry, "ValidationError", validationErrorSchema);
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      {
        description,
        content: jsonContent(status === "422" ? validation : detail),
        ...(status === "429" ? { headers: RETRY_AFTER } : {}),
      },
    ]),
  );
}

/** Documented paths served at the origin's root rather than under the API's prefix (/v1). */
export const ROOT_PATHS = ["/.well-known/jwks.json"] as const;

export const BEARER_SCHEME = "bearerAuth";
export const SERVICE_KEY_SCHEME = "serviceKey";
export const STRIPE_SIGNATURE_SCHEME = "stripeSignature";

export function registerSecuritySchemes(registry: Registry): void {
  registry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The access_token from POST /v1/token.",
  });
  registry.registerComponent("securitySchemes", SERVICE_KEY_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "gsk_…",
    description:
      "A service key of the generation service (`npm run service-key -- create`), with the scope the call names.",
  });
  registry.registerComponent("securitySchemes", STRIPE_SIGNATURE_SCHEME, {
    type: "apiKey",
    in: "header",
    name: "Stripe-Signature",
    description: "Stripe's signature of the event body with the endpoint's signing secret (whsec_…).",
  });
}

/**
 * Registers a route in the OpenAPI document and in the router with the same method and path.
 * (OpenAPIHono's own `.openapi()` types handlers from zod schemas; ours come from JSON Schema, and
 * validation is done by the handlers with the contract's schemas: see validation.ts.)
 */
export function addRoute<E extends Env>(
  app: OpenAPIHono<E>,
  route: RouteConfig,
  ...handlers: [...MiddlewareHandler<E>[], Handler<E>]
): void {
  app.openAPIRegistry.registerPath(route);
  app.on(
    route.method.toUpperCase(),
    route.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
    ...(handlers as [Handler<E>]),
  );
}

export function pathParameter(name: string, description: string) {
  return { name, in: "path" as const, required: true, description, schema: { type: "string" as const } };
}
