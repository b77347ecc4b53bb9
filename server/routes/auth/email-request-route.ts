// The two calls that take an e-mail address and mail a link to it: resend verification and the
// password reset request. Neither answer may tell a caller whether the address has an account, so
// both go through this one function: validate, count against the per-IP and per-address limits
// (the address's minute for this call; its hour and day for both calls, so no one floods a mailbox),
// hand the work to the background, answer a fixed message. A difference between the two paths
// would be a leak; here there is no second path to drift.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { emailRequestSchema } from "../../../contract/account.ts";
import { DETAIL } from "../../../contract/messages.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { clientIp } from "../../http/client-ip.ts";
import {
  addRoute,
  detailAnswer,
  errorResponses,
  jsonContent,
  PUBLIC,
  schemaRef,
} from "../../http/openapi.ts";
import { enforceLimits, type LimitName, mailboxLimits } from "../../http/rate-limit.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";

export interface EmailRequestRoute {
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** The per-address limit this call counts against (each call has its own count). */
  addressLimit: LimitName;
  /** The fixed answer, the same for every address. */
  answer: string;
  /** Starts the work in the background: never awaited, so its duration cannot show in the answer. */
  start: (email: string) => void;
}

export function addEmailRequestRoute(
  app: OpenAPIHono<AppEnv>,
  deps: ApiDeps,
  route: EmailRequestRoute,
): void {
  const registry = app.openAPIRegistry;
  addRoute(
    app,
    {
      method: "post",
      path: route.path,
      operationId: route.operationId,
      security: PUBLIC,
      tags: route.tags,
      summary: route.summary,
      description: route.description,
      request: {
        body: {
          required: true,
          content: jsonContent(
            schemaRef(registry, "EmailRequest", emailRequestSchema, "input", {
              example: { email: "ann@example.com" },
            }),
          ),
        },
      },
      responses: {
        200: detailAnswer(registry, `"${route.answer}"`),
        ...errorResponses(registry, {
          422: "Not a valid e-mail address",
          429: `"${DETAIL.tooManyRequests}", with Retry-After: too many calls from this client address (an IPv6 client counts by its /64), for this address by this call in a minute, or mails to this address in an hour or a day, by either call or as an e-mail change link (the same for an address with or without an account)`,
        }),
      },
    },
    async (c) => {
      const { email } = await parseJsonBody(c, emailRequestSchema);
      await enforceLimits(deps.limiter, [
        ["emailIp", clientIp(c, deps.trustProxy)],
        [route.addressLimit, email],
        // Both calls mail the same mailbox: an hour's and a day's count over the two together.
        ...mailboxLimits(email),
      ]);
      route.start(email);
      return c.json({ detail: route.answer }, 200);
    },
  );
}
