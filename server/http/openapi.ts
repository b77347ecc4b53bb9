// OpenAPI pieces generated from the contract's zod schemas. The contract is written in zod/mini
// (small in the browser), which @hono/zod-openapi's generator cannot read, so each schema is
// converted with zod's own JSON Schema generator (OpenAPI 3.1 uses JSON Schema 2020-12) and
// registered as a named component that routes reference.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Env, Handler, MiddlewareHandler } from "hono";
import * as z from "zod/mini";
import { detailSchema, validationErrorSchema } from "../../contract/account.ts";
import { DETAIL, VALIDATION } from "../../contract/messages.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import { MAX_BODY_BYTES } from "./api-middleware.ts";

export type Registry = OpenAPIHono["openAPIRegistry"];
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
  declareIntegerFormats(json);
  if (docs.example !== undefined) json.examples = [docs.example];
  for (const [property, description] of Object.entries(docs.properties ?? {})) {
    const target = json.properties?.[property];
    if (target) target.description = description;
  }
  registry.registerComponent("schemas", name, json as SchemaObject);
  return { $ref: `#/components/schemas/${name}` };
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Gives every integer its OpenAPI format: int32 when its bounds fit in 32 bits, int64 otherwise.
 * zod writes the bounds (z.int() is bounded to the safe integers) but no format, and a client
 * generator sizes its field from the format.
 */
export function declareIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) declareIntegerFormats(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === "integer" && schema.format === undefined) {
    const low = schema.minimum ?? schema.exclusiveMinimum;
    const high = schema.maximum ?? schema.exclusiveMaximum;
    const fits = (bound: unknown) => typeof bound === "number" && bound >= INT32.min && bound <= INT32.max;
    schema.format = fits(low) && fits(high) ? "int32" : "int64";
  }
  for (const value of Object.values(schema)) declareIntegerFormats(value);
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

/**
 * What a 429 answer carries besides its body: when to try again. Every limit counts per minute
 * (rate-limit.ts), so the wait is at most 60 seconds.
 */
const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds until the limit lets the next call through",
    // Per-minute limits wait at most a minute; the per-account ones (wrong codes, mails) an hour.
    schema: { type: "integer" as const, format: "int32", minimum: 1, maximum: 86_400 },
  },
};

/**
 * An error answer whose body is `{detail}` or, in some cases, `{detail}` with fields beside it
 * (an mfa_token, tries_left, reauth_required…): each such body is a schema of its own, and the
 * answer's schema is one of them, so a client generator keeps the fields a client needs.
 */
export interface RefusalWithFields {
  description: string;
  bodies: { $ref: string }[];
}

/** `description`, answered `{detail}` or one of `bodies` (components made by schemaRef). */
export function withFields(description: string, ...bodies: { $ref: string }[]): RefusalWithFields {
  return { description, bodies };
}

/** Standard error answers, by status, with their descriptions (a 429 declares its Retry-After). */
export function errorResponses(registry: Registry, statuses: Record<number, string | RefusalWithFields>) {
  const detail = schemaRef(registry, "Detail", detailSchema);
  const validation = schemaRef(registry, "ValidationError", validationErrorSchema);
  return Object.fromEntries(
    Object.entries(statuses).map(([status, answer]) => {
      const { description, bodies } =
        typeof answer === "string" ? { description: answer, bodies: [] } : answer;
      // A 422 lists the fields a schema refused, or says in a sentence what a rule refused (an
      // expiry in the past, text an audit entry cannot hold).
      const plain = status === "422" ? { oneOf: [validation, detail] } : detail;
      // Detail allows no other property, so exactly one of the bodies matches any answer.
      const schema = bodies.length === 0 ? plain : { oneOf: [plain, ...bodies] };
      return [
        status,
        {
          description,
          content: { "application/json": { schema } },
          ...(status === "429" ? { headers: RETRY_AFTER } : {}),
        },
      ];
    }),
  );
}

/** A successful answer whose body is `{detail}`: the sentence saying what was done. */
export function detailAnswer(registry: Registry, description: string) {
  return { description, content: jsonContent(schemaRef(registry, "Detail", detailSchema)) };
}

/** Documented paths served at the origin's root rather than under the API's prefix (/v1). */
export const ROOT_PATHS = ["/.well-known/jwks.json"] as const;

export const BEARER_SCHEME = "bearerAuth";
export const SERVICE_KEY_SCHEME = "serviceKey";
export const STRIPE_SIGNATURE_SCHEME = "stripeSignature";

/**
 * The security of an operation anyone may call: sign-in, registration and the mailed-link calls
 * (the secret they need travels in the request), the catalogue, the JWKS. An empty requirement
 * says so explicitly (OpenAPI 3.1), where `security: []` would read as if it had been forgotten.
 */
export const PUBLIC: Record<string, string[]>[] = [{}];

/** The security of an operation for a signed-in customer (or anyone signed in). */
export const SIGNED_IN: Record<string, string[]>[] = [{ [BEARER_SCHEME]: [] }];

export function registerSecuritySchemes(registry: Registry): void {
  registry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "The access_token from POST /v1/token: a JWT handled as RFC8725 (JSON Web Token Best Current " +
      "Practices) asks. It is signed with EdDSA or ES256 only; the verifier accepts only the algorithms " +
      "of its own published keys (never `none`, never an HMAC), finds the key by `kid` among them, and " +
      "checks the signature, `typ` (JWT, the only kind of token this API signs), issuer, audience, " +
      "expiry and every claim it relies on. A token lives 24 hours at most and is refused once revoked " +
      "(sign-out, password change). On /v1/admin operations the role names listed are the staff roles " +
      "that may call it, and the token must come from a sign-in with two factors or a passkey.",
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
/**
 * A POST or DELETE that reads no body still gets one from ordinary JSON clients (`{}`) and from
 * forms: the route ignores it, broken JSON too, and the document says so rather than forbid it
 * (issue 32).
 */
const IGNORED_BODY = {
  required: false,
  content: {
    "*/*": { schema: { description: "Ignored: the route reads no body; none at all is the same." } },
  },
};

/** Marks a middleware that answers 429 on its own (limitWrites): its routes document that 429. */
export const ANSWERS_TOO_MANY = Symbol("answers 429");

/**
 * Marks the middleware that reads X-Organization (server/orgs/membership.ts): its routes document
 * the header and the 404 it answers for an organisation the caller is not a member of.
 */
export const READS_ORG_HEADER = Symbol("reads X-Organization");

const ORG_HEADER_PARAMETER = {
  name: "X-Organization",
  in: "header" as const,
  required: false,
  description:
    "The organisation the call acts on (its id); without it, the caller's personal organisation. An organisation the caller is not a member of answers 404.",
  schema: { type: "string" as const, maxLength: 64 },
};

const has = (handlers: readonly unknown[], mark: symbol) =>
  handlers.some((h) => typeof h === "function" && mark in h);

const signedIn = (route: RouteConfig) =>
  (route.security ?? []).some((requirement) => BEARER_SCHEME in requirement);

/**
 * What a route may answer before or beside its own list, added where the list leaves it out:
 * 413 from the body limit on every method that takes a body (server/http/api-middleware.ts), 403
 * "Account disabled" from the sign-in guard on every signed-in route, and 429 where a write limit
 * runs first. A POST or DELETE that declares no body is said to ignore one.
 */
function withCommonAnswers(
  route: RouteConfig,
  registry: Registry,
  handlers: readonly unknown[],
): RouteConfig {
  const takesBody = route.method !== "get" && route.method !== "head";
  const common = errorResponses(registry, {
    ...(takesBody ? { 413: `The body is larger than ${MAX_BODY_BYTES} bytes` } : {}),
    ...(signedIn(route) ? { 403: `"${DETAIL.accountDisabled}": staff disabled the account` } : {}),
    ...(has(handlers, ANSWERS_TOO_MANY) ? { 429: "Too many writes" } : {}),
    ...(handlers.some(
      (h) =>
        typeof h === "function" && (h as { [READS_ORG_HEADER]?: string })[READS_ORG_HEADER] === "may refuse",
    )
      ? { 404: `"${ORG_DETAIL.notFound}": X-Organization names no organisation of the caller` }
      : {}),
  });
  const readsOrg = has(handlers, READS_ORG_HEADER);
  return {
    ...route,
    ...(readsOrg
      ? {
          parameters: [...(route.parameters ?? []), ORG_HEADER_PARAMETER] as NonNullable<
            RouteConfig["parameters"]
          >,
        }
      : {}),
    ...((route.method === "post" || route.method === "delete") && !route.request?.body
      ? { request: { ...route.request, body: IGNORED_BODY } }
      : {}),
    responses: { ...common, ...route.responses },
  };
}

export function addRoute<E extends Env>(
  app: OpenAPIHono<E>,
  route: RouteConfig,
  ...handlers: [...MiddlewareHandler<E>[], Handler<E>]
): void {
  app.openAPIRegistry.registerPath(withCommonAnswers(route, app.openAPIRegistry, handlers));
  app.on(
    route.method.toUpperCase(),
    route.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
    ...(handlers as [Handler<E>]),
  );
}

/**
 * The kinds of id a path names, with the limits a real one keeps. A value outside them names
 * nothing, and the route answers it as it answers any unknown id.
 */
export const PATH_IDS = {
  /** Users, invoices, credit notes, payments. */
  uuid: { type: "string" as const, format: "uuid", maxLength: 36 },
  /** An API key's id (key-format.ts: 12 base62 characters). */
  apiKey: { type: "string" as const, pattern: "^[0-9A-Za-z]{12}$", maxLength: 12 },
  /** A passkey's credential id: at most 1023 bytes (WebAuthn), in Base64URL. */
  passkey: { type: "string" as const, pattern: "^[A-Za-z0-9_-]+$", maxLength: 1364 },
  /** A mailed link's token: 32 random bytes in Base64URL (secret-tokens.ts). */
  mailedToken: { type: "string" as const, pattern: "^[A-Za-z0-9_-]+$", maxLength: 43 },
};

export function pathParameter(
  name: string,
  description: string,
  schema: (typeof PATH_IDS)[keyof typeof PATH_IDS],
) {
  return { name, in: "path" as const, required: true, description, schema };
}
