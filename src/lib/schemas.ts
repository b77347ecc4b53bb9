// The contract schemas the portal checks answers and forms with, in one module that the API
// client and the forms load on demand: zod/mini is the largest piece of the portal's own code, and
// a visitor's page never needs it until a call is answered or a form is submitted.
import * as z from "zod/mini";

export {
  changePasswordFormSchema,
  detailSchema,
  emailRequestSchema,
  loginSchema,
  registeredUserSchema,
  registerSchema,
  resetCheckResponseSchema,
  resetPasswordFormSchema,
  tokenResponseSchema,
  userSchema,
} from "../../contract/account.ts";
export {
  actionResultSchema,
  adminLedgerSchema,
  adminPaymentListSchema,
  auditPageSchema,
  creditChangeResultSchema,
  customerSchema,
  customerSearchSchema,
  metricsSchema,
  reasonRequestSchema,
  refundResultSchema,
  vatReportSchema,
} from "../../contract/admin.ts";
export {
  adminOrgMemberListSchema,
  adminOrgSchema,
  adminOrgSearchSchema,
  customerOrgListSchema,
} from "../../contract/admin-orgs.ts";
export { lowBalanceAlertSchema } from "../../contract/alerts.ts";
export {
  apiKeyListSchema,
  createApiKeyRequestSchema,
  createdApiKeySchema,
  revokedKeysSchema,
} from "../../contract/api-keys.ts";
export { autoTopUpSchema, consentTextSchema } from "../../contract/auto-top-up.ts";
export {
  checkoutUrlSchema,
  ledgerSchema,
  productListSchema,
  topUpProductListSchema,
} from "../../contract/billing.ts";
export { emailStateSchema } from "../../contract/email-state.ts";
export {
  billingDetailsSchema,
  billingPortalSessionSchema,
  invoiceListSchema,
  invoiceSchema,
} from "../../contract/invoices.ts";
export {
  acceptedInvitationSchema,
  invitationListSchema,
  invitationRequestSchema,
  memberChangedSchema,
  memberChangeSchema,
  memberListSchema,
  memberRemovedSchema,
  orgListSchema,
  orgNameRequestSchema,
  orgSchema,
  publicInvitationSchema,
} from "../../contract/orgs.ts";
export { passkeyListSchema, passkeySchema, webauthnOptionsSchema } from "../../contract/passkeys.ts";
export { securityEventsSchema } from "../../contract/security-events.ts";
export {
  mfaCodeBodySchema,
  mfaStatusSchema,
  recoveryCodesSchema,
  totpConfirmedSchema,
  totpSetupSchema,
} from "../../contract/two-factor.ts";
export { usageSchema } from "../../contract/usage.ts";

/** For calls whose answer the portal does not read (it only needs to know they succeeded). */
export const anyAnswerSchema = z.unknown();
