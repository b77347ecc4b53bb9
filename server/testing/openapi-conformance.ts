// The API's conformance to its own OpenAPI document, judged by a validator this project did not
// write (openapi-backend, decision 025): every request and answer that passes through an app is
// matched to its documented operation and checked against the document the app serves.
//
// openapi-backend finds the operation and validates bodies, parameters and headers with Ajv. It
// leaves three things to its caller, which this module adds without judging any schema itself:
// an answer whose status the operation does not list (openapi-backend skips those silently), an
// answer's media type, and a body sent to an operation that declares none.
import Ajv2020, { type Options as AjvOptions, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Hono } from "hono";
import OpenAPIBackend, {
  type Document,
  type Request as OpenApiRequest,
  type Operation,
} from "openapi-backend";

/** One broken rule: the operation it concerns and the rule, in words. */
export interface Violation {
  /** "POST /v1/token (login)": the method, the documented path template and the operationId. */
  operation: string;
  status: number;
  rule: string;
}

/** What a checker has seen: every operation met, with the statuses it answered. */
export type Coverage = Map<string, Set<number>>;

export interface ConformanceChecker {
  /** Checks one exchange; answers what it broke (nothing for a path the document does not have). */
  check(request: Request, response: Response): Promise<Violation[]>;
  /** Wraps `app.fetch` (which `app.request` calls) so that every exchange is checked and recorded. */
  watch(app: Hono): void;
  violations: Violation[];
  coverage: Coverage;
  /** Every operation of the document, as Violation.operation names it. */
  operations: string[];
}

// int32/int64 as OpenAPI defines them; ajv-formats knows JSON Schema's formats (uuid, email,
// date-time, uri), not OpenAPI's.
const INTEGER_FORMATS = {
  int32: { type: "number" as const, validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: "number" as const, validate: (n: number) => Number.isSafeInteger(n) },
};

/**
 * OpenAPI 3.1 schemas are JSON Schema 2020-12: openapi-backend's default Ajv speaks draft-07, so
 * each validator it builds is an Ajv2020 with the same options instead.
 */
function ajv2020(_draft07: unknown, options: AjvOptions) {
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
  addFormats(ajv);
  for (const [name, format] of Object.entries(INTEGER_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

export function operationName(operation: Operation): string {
  return `${operation.method.toUpperCase()} ${operation.path} (${operation.operationId})`;
}

function describeError(where: string, error: ErrorObject): string {
  const path = `${where}${error.instancePath}`;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  return `${path} ${error.message ?? error.keyword}${extra ? `: ${extra}` : ""}`;
}

/**
 * The documented media type entry for `type`, as OpenAPI matches them: the exact type first, then
 * its range (`text/*`), then any (`*\/*`).
 */
function mediaEntry(content: Record<string, unknown> | undefined, type: string): unknown {
  if (!content) return undefined;
  // A structured +json type is JSON (RFC 6839), and Hono's validator reads it as JSON: a body
  // sent as application/merge-patch+json is judged as the application/json the route declares.
  const json = /^application\/[\w.-]+\+json$/.test(type) ? content["application/json"] : undefined;
  return content[type] ?? json ?? content[`${type.split("/")[0]}/*`] ?? content["*/*"];
}

const mediaType = (value: string | null) => (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** The body as openapi-backend expects it: parsed JSON or form fields, else the text. */
function parsedBody(text: string, type: string): unknown {
  if (text === "") return undefined;
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (type === "application/json") {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * openapi-backend's own reading, not OpenAPI's: it refuses every query parameter an operation
 * does not list (additionalProperties: false on the query). OpenAPI forbids no unlisted query
 * parameter, and the server ignores them as browsers' and proxies' cache-busters expect, so such
 * a request is no request "the document forbids". A listed parameter with a wrong value still is.
 */
function isUnlistedQueryParameter(error: ErrorObject): boolean {
  return error.instancePath === "/query" && error.keyword === "additionalProperties";
}

/** The documented answer for `status`: the exact code, else its range (4XX), else `default`. */
function documentedAnswer(operation: Operation, status: number) {
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

export async function conformanceChecker(document: Document): Promise<ConformanceChecker> {
  // quick: openapi-backend would check the document against the OpenAPI 3.0 schema, which a 3.1
  // document fails; `npm run lint` checks it as 3.1 (Redocly, Spectral). Quick mode skips that
  // check and compiles each operation's validators when it is first met.
  const api = new OpenAPIBackend({ definition: document, quick: true, strict: true, customizeAjv: ajv2020 });
  await api.init();
  const operations = api.getOperations().map(operationName);
  const violations: Violation[] = [];
  const coverage: Coverage = new Map();

  async function check(request: Request, response: Response): Promise<Violation[]> {
    const url = new URL(request.url);
    const requestType = mediaType(request.headers.get("content-type"));
    // A multipart form is read as its fields (Request.formData), as the route reads it.
    const form =
      requestType === "multipart/form-data"
        ? await request
            .clone()
            .formData()
            .catch(() => undefined)
        : undefined;
    const requestText = await request.text();
    const req: OpenApiRequest = {
      method: request.method,
      path: url.pathname,
      query: url.search.slice(1),
      headers: Object.fromEntries(request.headers),
      body: form
        ? Object.fromEntries([...form].map(([k, v]) => [k, String(v)]))
        : parsedBody(requestText, requestType),
    };
    const operation = api.router.matchOperation(req);
    if (!operation) return [];
    const name = operationName(operation);
    const status = response.status;
    coverage.set(name, (coverage.get(name) ?? new Set()).add(status));
    const found: Violation[] = [];
    const broken = (rule: string) => found.push({ operation: name, status, rule });

    const answer = documentedAnswer(operation, status);
    const responseText = await response.text();
    const responseType = mediaType(response.headers.get("content-type"));
    if (!answer) {
      const listed = Object.keys(operation.responses ?? {}).join(", ");
      broken(`answered ${status}, which the document does not list (it lists ${listed}): ${responseText}`);
    } else if (responseText !== "" && !mediaEntry(answer.content, responseType)) {
      const listed = Object.keys(answer.content ?? {}).join(", ") || "no body";
      broken(`answered ${status} with ${responseType || "an untyped body"}; the document says ${listed}`);
    } else if (responseType === "application/json") {
      const result = api.validator.validateResponse(JSON.parse(responseText), operation, status);
      for (const error of result.errors ?? []) broken(`answer ${status}: ${describeError("body", error)}`);
    }
    const headers = api.validator.validateResponseHeaders(Object.fromEntries(response.headers), operation, {
      statusCode: status,
    });
    for (const error of headers.errors ?? []) broken(`answer ${status}: ${describeError("", error)}`);

    // A request the server refused is the server's business; one it accepted must be one the
    // document allows, or a client that follows the document could not have sent it.
    if (status >= 200 && status < 300) {
      const body = operation.requestBody as { content: Record<string, unknown> } | undefined;
      if (requestText !== "" && !body) {
        broken(`accepted a request body (${requestType}), but the document declares none`);
      } else if (requestText !== "" && body && !mediaEntry(body.content, requestType)) {
        broken(`accepted a ${requestType} body; the document allows ${Object.keys(body.content).join(", ")}`);
      }
      const result = api.validator.validateRequest(req, operation);
      for (const error of (result.errors ?? []).filter((e) => !isUnlistedQueryParameter(e)))
        broken(`accepted a request the document forbids: ${describeError("", error)}`);
    }
    violations.push(...found);
    return found;
  }

  return {
    check,
    violations,
    coverage,
    operations,
    watch(app) {
      const fetch = app.fetch;
      app.fetch = async (request, ...rest) => {
        const sent = request.clone();
        const response = await fetch(request, ...rest);
        await check(sent, response.clone());
        return response;
      };
    },
  };
}

/**
 * Every example the document gives that its own schema refuses: the schemas' `examples`, and
 * the `example`/`examples` of parameters and media types, judged by the same Ajv 2020-12.
 */
export function refusedExamples(document: Record<string, unknown>): string[] {
  const ajv = ajv2020(undefined, { validateSchema: false });
  ajv.addSchema(document, "openapi.json");
  const refused: string[] = [];
  const judge = (where: string, pointer: string, example: unknown) => {
    const validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
    if (!validate(example)) {
      refused.push(`${where}: ${(validate.errors ?? []).map((e) => describeError("example", e)).join("; ")}`);
    }
  };
  const pointerKey = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
  const walk = (node: unknown, pointer: string) => {
    if (typeof node !== "object" || node === null) return;
    const object = node as Record<string, unknown>;
    const isSchema = pointer.startsWith("/components/schemas/") || pointer.endsWith("/schema");
    if (isSchema && Array.isArray(object.examples)) {
      for (const example of object.examples) judge(pointer, pointer, example);
    }
    if (!isSchema && object.schema !== undefined) {
      const examples = [
        ...(object.example === undefined ? [] : [object.example]),
        ...Object.values((object.examples ?? {}) as Record<string, { value?: unknown }>).map((e) => e.value),
      ];
      for (const example of examples) judge(pointer, `${pointer}/schema`, example);
    }
    for (const [key, value] of Object.entries(object)) walk(value, `${pointer}/${pointerKey(key)}`);
  };
  walk(document.paths, "/paths");
  walk(document.components, "/components");
  return refused;
}

/** The violations as one message per line, for a test's failure. */
export function report(violations: Violation[]): string {
  return violations.map((v) => `${v.operation} → ${v.rule}`).join("\n");
}
