// The unit tests Stryker runs against its mutants (npm run test:mutation): the pure billing and key modules'
// own tests, no database and no server, so each mutant costs a second, not a minute.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "server/domain/*.test.ts",
      "server/billing/fulfilment.test.ts",
      "server/billing/invoice-rules.test.ts",
      "server/payments/stripe/event-parser.test.ts",
      "server/payments/stripe/events.test.ts",
      "server/payments/local/retry-schedule.test.ts",
      "server/payments/stripe/signature.test.ts",
      "server/api-access/key-format.test.ts",
      "server/api-access/introspection-cache.test.ts",
      "server/usage/usage-range.test.ts",
      "server/usage/usage-csv.test.ts",
      "server/csv/paged-csv.test.ts",
      "server/operations/permissions.test.ts",
      "server/auth/mailbox.test.ts",
      "server/auth/totp.test.ts",
      "contract/totp-code.test.ts",
      "server/auth/mfa-secrets.test.ts",
      "contract/credit-costs.test.ts",
      "contract/free-text.test.ts",
      "src/lib/admin-actions.test.ts",
      "src/lib/credit-breakdown.test.ts",
      "contract/org-roles.test.ts",
      "contract/org-messages.test.ts",
      "server/orgs/org-rules.test.ts",
      "server/operations/org-permissions.test.ts",
      "src/lib/org-view.test.ts",
      "src/lib/admin-org-actions.test.ts",
      "contract/vat-id-verification.test.ts",
      "src/lib/auto-top-up-form.test.ts",
      "server/billing/pipelined-batches.test.ts",
      "server/db/lost-connection.test.ts",
      "server/billing/retried-spends.test.ts",
    ],
    environment: "node",
    maxWorkers: 1,
  },
});
