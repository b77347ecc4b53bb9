// The /v1 API: every account route, the OpenAPI document and its docs page.
import { OpenAPIHono } from "@hono/zod-openapi";
import { DETAIL } from "../../contract/messages.ts";
import { type AutoTopUpSettingsDeps, autoTopUpCommands } from "../billing/auto-top-up/settings.ts";
import type { Seller } from "../domain/vat.ts";
import { apiBodyLimit, apiCors } from "../http/api-middleware.ts";
import type { AppEnv } from "../http/app-env.ts";
import { registerSecuritySchemes } from "../http/openapi.ts";
import { adminActionRoutes } from "./admin/action-routes.ts";
import type { AdminDeps } from "./admin/admin-deps.ts";
import { adminAuditRoutes } from "./admin/audit-routes.ts";
import { adminAutoTopUpRoutes } from "./admin/auto-top-up-routes.ts";
import { adminCustomerRoutes } from "./admin/customer-routes.ts";
import { adminOrgRoutes } from "./admin/org-routes.ts";
import { adminReportRoutes } from "./admin/report-routes.ts";
import { apiKeyRoutes } from "./api-access/api-keys.ts";
import { introspectRoutes } from "./api-access/introspect.ts";
import { documentJwks } from "./api-access/jwks.ts";
import type { ApiDeps } from "./api-deps.ts";
import { emailVerificationRoutes } from "./auth/email-verification.ts";
import { mfaLoginRoutes } from "./auth/mfa-login.ts";
import { passkeyLoginRoutes } from "./auth/passkey-login.ts";
import { passwordResetRoutes } from "./auth/password-reset.ts";
import { reauthRoutes } from "./auth/reauth.ts";
import { registerRoutes } from "./auth/register.ts";
import { sessionRoutes } from "./auth/sessions.ts";
import { tokenRoutes } from "./auth/token.ts";
import { autoTopUpRoutes } from "./billing/auto-top-up.ts";
import { billingHistoryRoutes } from "./billing/history.ts";
import { type BillingRouteDeps, billingRoutes } from "./billing/routes.ts";
import { docsRoutes } from "./docs/routes.ts";
import { organisationRoutes } from "./orgs/routes.ts";
import { usageRoutes } from "./usage/routes.ts";
import { accountDataRoutes } from "./users/account-data.ts";
import { emailChangeRoutes } from "./users/email.ts";
import { lowBalanceAlertRoutes } from "./users/low-balance-alert.ts";
import { passkeyRoutes } from "./users/passkeys.ts";
import { passwordChangeRoutes } from "./users/password.ts";
import { userRoutes } from "./users/routes.ts";
import { securityEventRoutes } from "./users/security-events.ts";
import { twoFactorRoutes } from "./users/two-factor.ts";
import { webhookRoutes } from "./webhooks/routes.ts";

export const API_PREFIX = "/v1";

export function v1Routes(
  deps: ApiDeps,
  corsOrigins: string[],
  billing: Pick<BillingRouteDeps, "billing" | "catalogue">,
  operations: Pick<AdminDeps, "supportGrantLimits" | "provider" | "afterProviderChange"> & {
    provider: AutoTopUpSettingsDeps["provider"];
  },
  /** The seller (VAT and the card page's consent text) and the portal (the card page's return). */
  site: { seller: Pick<Seller, "name" | "country">; portalUrl: string },
): OpenAPIHono<AppEnv> {
  // basePath rather than mounting under /v1: the OpenAPI document then shows the full paths.
  const api = new OpenAPIHono<AppEnv>().basePath(API_PREFIX);
  registerSecuritySchemes(api.openAPIRegistry);
  api.use("*", apiCors(corsOrigins), apiBodyLimit);

  api.route("/", tokenRoutes(deps));
  api.route("/", sessionRoutes(deps));
  api.route("/", reauthRoutes(deps));
  api.route("/", mfaLoginRoutes(deps));
  api.route("/", passkeyLoginRoutes(deps));
  api.route("/", registerRoutes(deps));
  api.route("/", userRoutes(deps));
  api.route("/", lowBalanceAlertRoutes(deps));
  api.route("/", twoFactorRoutes(deps));
  api.route("/", passkeyRoutes(deps));
  api.route("/", passwordChangeRoutes(deps));
  api.route("/", emailChangeRoutes(deps));
  api.route("/", securityEventRoutes(deps));
  api.route("/", passwordResetRoutes(deps));
  api.route("/", emailVerificationRoutes(deps));
  api.route("/", billingRoutes({ ...deps, ...billing }));
  api.route("/", billingHistoryRoutes({ ...deps, billing: billing.billing }));
  const autoTopUp = autoTopUpCommands({
    db: deps.db,
    catalogue: billing.catalogue,
    provider: operations.provider,
    engine: deps.autoTopUp,
    seller: site.seller,
    portalUrl: site.portalUrl,
    afterProviderChange: operations.afterProviderChange,
  });
  api.route("/", autoTopUpRoutes({ ...deps, autoTopUpCommands: autoTopUp }));
  api.route("/", accountDataRoutes({ ...deps, billing: billing.billing }));
  api.route("/", webhookRoutes(billing.billing));
  api.route("/", apiKeyRoutes(deps));
  api.route("/", introspectRoutes(deps));
  api.route("/", usageRoutes(deps));
  api.route("/", organisationRoutes({ ...deps, billing: billing.billing }));
  const admin: AdminDeps = { ...deps, billing: billing.billing, catalogue: billing.catalogue, ...operations };
  api.route("/", adminCustomerRoutes(admin));
  api.route("/", adminActionRoutes(admin));
  api.route("/", adminOrgRoutes(admin));
  api.route("/", adminAuditRoutes(admin));
  api.route("/", adminAutoTopUpRoutes({ ...deps, autoTopUpCommands: autoTopUp }));
  api.route("/", adminReportRoutes(admin));
  documentJwks(api);
  docsRoutes(api, API_PREFIX);

  // Unknown /v1 paths answer JSON here rather than falling through to the portal's 404 page.
  api.all("*", (c) => c.json({ detail: DETAIL.notFound }, 404));
  return api;
}
