// Auto top-up's calls for owners and billing members (AUTO-TOP-UP.md, "Settings"): its state, its
// settings with their consent, the consent text for given values, and the saved card (the page that
// saves one, and removing it). They act on the X-Organization organisation (or the personal one).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  AUTO_TOP_UP_TEXT,
  autoTopUpRequestSchema,
  autoTopUpSchema,
  consentTextRequestSchema,
  consentTextSchema,
} from "../../../contract/auto-top-up.ts";
import { checkoutUrlSchema } from "../../../contract/billing.ts";
import { ORG_DETAIL } from "../../../contract/org-messages.ts";
import {
  type AutoTopUpCommands,
  AutoTopUpRefusal,
  type MemberChange,
  RecentAuthNeeded,
} from "../../billing/auto-top-up/settings.ts";
import { autoTopUpView } from "../../billing/auto-top-up/view.ts";
import type { AppEnv } from "../../http/app-env.ts";
import {
  isRecentAuth,
  limitWrites,
  reauthRefusal,
  reauthRequired,
  requireRecentAuth,
  requireUser,
} from "../../http/auth-guard.ts";
import { ApiError, RequestValidationError } from "../../http/errors.ts";
import { addRoute, errorResponses, jsonContent, SIGNED_IN, schemaRef } from "../../http/openapi.ts";
import { originOf } from "../../http/request-origin.ts";
import { parseJsonBody } from "../../http/validation.ts";
import type { ApiDeps } from "../api-deps.ts";
import { ORG_REFUSALS, orgWith } from "./acting-org.ts";

export type AutoTopUpRouteDeps = Pick<
  ApiDeps,
  "db" | "clock" | "accessTokens" | "limiter" | "trustProxy" | "passkeys" | "twoFactor"
> & {
  /** Auto top-up's commands (billing/auto-top-up/settings.ts), with the engine they call. */
  autoTopUpCommands: AutoTopUpCommands;
};

/** A command's refusal as the contract answers it: `{detail}` with its status, or the 422 field list. */
async function answering<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof AutoTopUpRefusal)
      throw error.fields.length > 0
        ? new RequestValidationError(error.fields)
        : new ApiError(error.status, error.message);
    throw error;
  }
}

export function autoTopUpRoutes(deps: AutoTopUpRouteDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const registry = app.openAPIRegistry;
  const commands = deps.autoTopUpCommands;
  const auth = requireUser(deps);
  const writes = limitWrites(deps.limiter);
  // The saved card and auto top-up are the organisation's billing: owners and billing members.
  const billingOrg = orgWith(deps.db, "billing");
  const security = SIGNED_IN;
  const tags = ["billing"];
  const state = (description: string) => ({
    description,
    content: jsonContent(schemaRef(registry, "AutoTopUp", autoTopUpSchema)),
  });
  const roleOrReauth = reauthRefusal(registry, `"${ORG_DETAIL.notAllowed}"; or `);
  const view = (orgId: string) => autoTopUpView(deps.db, orgId, commands.currency, deps.clock.now());
  const memberChange = (c: Context<AppEnv>): MemberChange => {
    const { org, user } = c.var;
    return {
      orgId: org.id,
      personal: org.personal,
      actor: { id: user.id, username: user.username, email: user.email },
      origin: originOf(c, deps.trustProxy),
    };
  };

  addRoute(
    app,
    {
      method: "get",
      path: "/billing/auto-top-up",
      operationId: "getAutoTopUp",
      tags,
      summary: "Auto top-up: the settings, the saved card, the state with its reason, and the last attempts",
      description:
        "`charged_this_month` is what this Berlin calendar month's attempts charged: the paid ones, refunded ones too (a refund gives no room back). The limit also keeps room for money that may still be taken (a payment on its way or awaiting authentication, a cancelled attempt's invoice not yet seen void), shown as `reserved_this_month`: a pause for the monthly limit comes when one more pack would take the two together past it; the limit resets at `limit_resets_at`.",
      security,
      responses: {
        200: state("Auto top-up (settings null until first saved)"),
        ...errorResponses(registry, { 401: "No valid access token", ...ORG_REFUSALS }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => c.json(await view(c.var.org.id), 200),
  );

  addRoute(
    app,
    {
      method: "put",
      path: "/billing/auto-top-up",
      operationId: "putAutoTopUp",
      tags,
      summary: "Turn auto top-up on or off, or change its pack, threshold or monthly limit",
      description:
        "`threshold` is whole credits, from 10 to one less than the pack's credits; `monthly_limit` is gross, in the pack's currency, from one pack's price including VAT at the organisation's VAT today to €10,000. Turning it on, and any change of card, pack, threshold or limit while on, needs `consent` for the text `POST /v1/billing/auto-top-up/consent-text` answers for exactly those values, and so does resuming or keeping it on when that text is no longer the one consented to (a new card, or another VAT on file); `consent.text`, the text as shown, is refused when it is no longer the text for those values. Only a card saved by a current member is turned on. Raising the limit above the last consented one needs recent authentication. Turning it off is never refused for want of a card or a plan, and cancels a payment awaiting the bank's confirmation. A `daily_limit` pause holds until `paused_until` (the next midnight in Berlin), when it resumes by itself: keeping it on before then stores the values and answers it still paused.",
      security,
      request: {
        body: {
          required: true,
          content: jsonContent(schemaRef(registry, "AutoTopUpRequest", autoTopUpRequestSchema, "input")),
        },
      },
      responses: {
        200: state("Auto top-up as saved"),
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          403: roleOrReauth,
          409: `"${AUTO_TOP_UP_TEXT.noCard}", "${AUTO_TOP_UP_TEXT.noPlan}", "${AUTO_TOP_UP_TEXT.disputeHold}", or "${AUTO_TOP_UP_TEXT.cardOfMemberWhoLeft}": turning it on`,
          422: `Invalid body; a value out of range (each field named: product_id, threshold, monthly_limit.amount, monthly_limit.currency); or on consent: "${AUTO_TOP_UP_TEXT.consentRequired}" / "${AUTO_TOP_UP_TEXT.consentOutdated}" / "${AUTO_TOP_UP_TEXT.consentChanged}"`,
        }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      const body = await parseJsonBody(c, autoTopUpRequestSchema);
      const change = memberChange(c);
      try {
        const recent = isRecentAuth(deps.clock, c.var.claims);
        await answering(() => commands.saveSettings(change, body, recent, deps.clock.now()));
      } catch (error) {
        if (error instanceof RecentAuthNeeded) throw await reauthRequired(deps, change.actor.id);
        throw error;
      }
      return c.json(await view(change.orgId), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/billing/auto-top-up/consent-text",
      operationId: "autoTopUpConsentText",
      tags,
      summary: "The text to accept for these values before turning auto top-up on or changing it",
      description:
        "Rendered for the saved card and the organisation's VAT today; PUT /v1/billing/auto-top-up takes its `text_version`, and the text itself as shown, as `consent`. For an organisation without a confirmed VAT ID it ends with the waiver of the right of withdrawal.",
      security,
      request: {
        body: {
          required: true,
          content: jsonContent(schemaRef(registry, "ConsentTextRequest", consentTextRequestSchema, "input")),
        },
      },
      responses: {
        200: {
          description: "The text and its version",
          content: jsonContent(schemaRef(registry, "ConsentText", consentTextSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          409: `"${AUTO_TOP_UP_TEXT.noCard}"`,
          422: "Invalid body, or a value out of range (each field named)",
        }),
      },
    },
    auth,
    ...billingOrg,
    async (c) => {
      const body = await parseJsonBody(c, consentTextRequestSchema);
      return c.json(await answering(() => commands.textFor(c.var.org.id, body, deps.clock.now())), 200);
    },
  );

  addRoute(
    app,
    {
      method: "post",
      path: "/billing/payment-method/setup",
      operationId: "setupPaymentMethod",
      tags,
      summary: "The provider's page that saves a card for auto top-up's later charges",
      description:
        "The browser goes to `url` and comes back to /profile/billing?card=saved (or ?card=cancelled). The card is saved from the provider's event, never from the redirect; a newer card replaces the older.",
      security,
      responses: {
        200: {
          description: "Where to send the browser",
          content: jsonContent(schemaRef(registry, "CheckoutUrl", checkoutUrlSchema)),
        },
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          403: roleOrReauth,
          409: `"${AUTO_TOP_UP_TEXT.tooManyCardSetups}"`,
        }),
      },
    },
    auth,
    ...billingOrg,
    requireRecentAuth(deps),
    writes,
    async (c) =>
      c.json(await answering(() => commands.openCardSetup(memberChange(c), deps.clock.now())), 200),
  );

  addRoute(
    app,
    {
      method: "delete",
      path: "/billing/payment-method",
      operationId: "deletePaymentMethod",
      tags,
      summary: "Remove the saved card: detached at the provider, and auto top-up turns off",
      description:
        "The card auto top-up saved (its own payment method at the provider) is detached; auto top-up turns off, and a payment awaiting the bank's confirmation is cancelled.",
      security,
      responses: {
        200: state("Auto top-up without the card (off)"),
        ...errorResponses(registry, {
          401: "No valid access token",
          ...ORG_REFUSALS,
          404: `"${AUTO_TOP_UP_TEXT.noSavedCard}"; or the organisation is not found (X-Organization)`,
        }),
      },
    },
    auth,
    ...billingOrg,
    writes,
    async (c) => {
      const change = memberChange(c);
      await answering(() => commands.removeCard(change, deps.clock.now()));
      return c.json(await view(change.orgId), 200);
    },
  );

  return app;
}
