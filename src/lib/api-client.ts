// The portal's one HTTP client (ofetch): base URL from PUBLIC_API_BASE_URL (empty = same origin),
// JSON by default, the Bearer header from an argument or localStorage, and every answer checked
// against its contract schema so a component never handles a shape it did not expect. ofetch and
// the schemas load on the first call, not with the page: a visitor's page makes no call at all,
// and together they would be a third of the page's JavaScript budget (see schemas.ts).
import type { FetchError } from "ofetch";
import type * as z from "zod/mini";
import { chosenOrganization, readStoredToken } from "./auth-storage.ts";
import type { FailedAnswer } from "./error-messages.ts";

const BASE_URL: string = import.meta.env.PUBLIC_API_BASE_URL ?? "";

/** A call that failed: with the answer's status and detail, or `status: undefined` for no answer. */
export class ApiError extends Error implements FailedAnswer {
  readonly status: number | undefined;
  readonly detail: unknown;
  /** The whole answer, for a refusal with more than `detail` (deleting an organisation: what is lost). */
  readonly body: unknown;
  /** The server wants the password again before this action (403 `reauth_required: true`). */
  readonly reauthRequired: boolean;
  /** The password was right and a second factor is due: POST /v1/token's 403 `mfa_token`. */
  readonly mfaToken: string | undefined;
  /**
   * What may answer the 403: with `mfaToken`, the second step ("totp", "recovery_code",
   * "webauthn"); with `reauthRequired`, the re-authentication ("password", "webauthn").
   */
  readonly methods: readonly string[];
  /**
   * With `reauthRequired` (or POST /v1/reauth's 400): the account has two-factor sign-in on, so the
   * password needs a code from the authenticator app or a recovery code beside it.
   */
  readonly codeRequired: boolean;
  /** A wrong two-factor code: how many more the sign-in step takes. */
  readonly triesLeft: number | undefined;
  constructor(
    status: number | undefined,
    detail: unknown,
    message: string,
    extra: {
      reauthRequired?: boolean;
      mfaToken?: string | undefined;
      methods?: readonly string[];
      codeRequired?: boolean;
      triesLeft?: number | undefined;
      body?: unknown;
    } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
    this.body = extra.body;
    this.reauthRequired = extra.reauthRequired ?? false;
    this.mfaToken = extra.mfaToken;
    this.methods = extra.methods ?? [];
    this.codeRequired = extra.codeRequired ?? false;
    this.triesLeft = extra.triesLeft;
  }
}

/** Any thrown value as an ApiError, so error-message mapping sees one shape (no status = no answer). */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(undefined, undefined, String(error));
}

export interface ApiRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** JSON body, or URLSearchParams for a form-urlencoded body (the login call). */
  body?: Record<string, unknown> | URLSearchParams;
  /** Send `Authorization: Bearer …`: `true` uses the stored token, a string uses that token. */
  auth?: boolean | string;
  /** Give up after this many milliseconds (an ApiError without status, like no answer); default: never. */
  timeoutMs?: number;
  /**
   * The organisation this call acts on instead of the chosen one (a mail's link names its own),
   * leaving the choice as it is; null: the personal one. Default: the chosen organisation.
   */
  organization?: string | null;
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const failed = error as Partial<FetchError> | null;
  if (failed?.response) {
    const data = failed.data as
      | {
          detail?: unknown;
          reauth_required?: unknown;
          mfa_token?: unknown;
          methods?: unknown;
          code_required?: unknown;
          tries_left?: unknown;
        }
      | undefined;
    const forbidden = failed.response.status === 403;
    return new ApiError(failed.response.status, data?.detail, failed.message ?? "Request failed", {
      reauthRequired: forbidden && data?.reauth_required === true,
      mfaToken: forbidden && typeof data?.mfa_token === "string" ? data.mfa_token : undefined,
      triesLeft: typeof data?.tries_left === "number" ? data.tries_left : undefined,
      methods: Array.isArray(data?.methods) ? data.methods.filter((m) => typeof m === "string") : [],
      codeRequired: data?.code_required === true,
      body: data,
    });
  }
  return new ApiError(undefined, undefined, error instanceof Error ? error.message : String(error));
}

type Schemas = typeof import("./schemas.ts");
/** The name of a contract schema in schemas.ts, e.g. "userSchema". */
export type SchemaName = {
  [K in keyof Schemas]: Schemas[K] extends z.ZodMiniType ? K : never;
}[keyof Schemas];
export type Answer<K extends SchemaName> = z.infer<Schemas[K]>;

/** Loads schemas.ts (once; the browser caches the module). */
export const loadSchemas = (): Promise<Schemas> => import("./schemas.ts");

/**
 * The one place a call is made: base URL, Bearer header, the chosen organisation (X-Organization:
 * the calls the contract lists act on it, the others ignore it), no retry; any failure as an ApiError.
 */
/** The signed-in calls under way: Sign Out lets them finish before the token stops working. */
const signedInCalls = new Set<Promise<unknown>>();

/** Set by Sign Out: the stored token is about to stop working, so no new call may use it. */
let signingOut = false;

/**
 * Sign Out's first step: no new call with the stored token is sent (it would be answered 401, a
 * failure the visitor did not cause: the account menu asks for its organisation list as it opens,
 * and Sign Out is in that menu), and it resolves once every such call under way has an answer, or
 * after `timeoutMs`. The page is left (and this module loaded afresh) once signed out.
 */
/** Sign Out's last step, once the token is gone from the browser: calls without it are refused anyway. */
export function signedOut(): void {
  signingOut = false;
}

export function endSignedInCalls(timeoutMs: number): Promise<unknown> {
  signingOut = true;
  if (signedInCalls.size === 0) return Promise.resolve();
  return Promise.race([
    Promise.allSettled([...signedInCalls]),
    new Promise((resolve) => setTimeout(resolve, timeoutMs)),
  ]);
}

function send<T>(path: string, request: ApiRequest, responseType?: "blob"): Promise<T> {
  const token = typeof request.auth === "string" ? request.auth : request.auth ? readStoredToken() : null;
  // The token is being signed out: the server could only answer 401.
  if (request.auth === true && signingOut) {
    return Promise.reject(new ApiError(401, undefined, "Signed out"));
  }
  const call = sendWith<T>(path, request, token, responseType);
  if (!token) return call;
  signedInCalls.add(call);
  const forget = () => {
    signedInCalls.delete(call);
  };
  call.then(forget, forget);
  return call;
}

async function sendWith<T>(
  path: string,
  { method = "GET", body, timeoutMs, organization: named }: ApiRequest,
  token: string | null,
  responseType?: "blob",
): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const organization = named === undefined ? chosenOrganization() : named;
  if (organization) headers["X-Organization"] = organization;
  try {
    const { ofetch } = await import("ofetch");
    return (await ofetch(path, {
      ...(BASE_URL ? { baseURL: BASE_URL } : {}),
      ...(body ? { body } : {}),
      method,
      headers,
      retry: 0,
      ...(timeoutMs ? { timeout: timeoutMs } : {}),
      ...(responseType ? { responseType } : {}),
    })) as T;
  } catch (error) {
    throw toApiError(error);
  }
}

function checked<S extends z.ZodMiniType>(schema: S, answer: unknown, path: string): z.infer<S> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new ApiError(200, undefined, `Unexpected answer from ${path}`);
  return parsed.data as z.infer<S>;
}

/** Calls `path` and returns the answer parsed by the named schema; throws ApiError on any failure. */
export async function apiRequest<K extends SchemaName>(
  path: string,
  schemaName: K,
  request: ApiRequest = {},
): Promise<Answer<K>> {
  // Loaded while the call is under way. When the call fails, nobody awaits this promise: its own
  // failure (the chunk did not load) would then be an unhandled rejection, so it is marked handled
  // here; `await schemas` below still throws it when the call succeeded.
  const schemas = loadSchemas();
  schemas.catch(() => {});
  const answer = await send<unknown>(path, request);
  return checked((await schemas)[schemaName] as z.ZodMiniType, answer, path) as Answer<K>;
}

/** Downloads `path` with the stored token as a file (a CSV export); throws ApiError on failure. */
export function apiDownload(path: string, request: Pick<ApiRequest, "organization"> = {}): Promise<Blob> {
  return send<Blob>(path, { ...request, auth: true }, "blob");
}

/** Downloads `path` (apiDownload) and hands it to the browser to save as `filename`. */
export async function saveDownload(
  path: string,
  filename: string,
  request: Pick<ApiRequest, "organization"> = {},
): Promise<void> {
  saveBlob(await apiDownload(path, request), filename);
}

/** Hands `blob` to the browser to save as `filename`. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  // The click has handed the file to the browser; the URL is not needed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
