// Mutation testing of the money rules (npm run test:mutation; .ci/run runs it, npm test does not):
// Stryker changes the pure billing modules one fault at a time and runs their unit tests; a fault
// no test notices is a gap. Each file must stay at 95 % or more (scripts/mutation-scores.ts). A full
// run is about 1,600 mutants and 5 minutes on 2 cores; with the committed incremental record, a run
// tests only what changed since (decision 015). Survivors that are truly equivalent (no input can
// tell them apart) are disabled in the source with a `// Stryker disable next-line <mutator>: <why>`
// comment at the line. There are these:
// - server/domain/subscription.ts, renewalFailed, subscriptionEnded and providerStatusChanged:
//   `state.status === "free" ||` is there for TypeScript's narrowing; FREE has no subscriptionId,
//   so the other test decides alone.
// - server/domain/subscription.ts, toUserSubscription: `scheduledProductId === null ? null : name(...)`
//   is null either way (name(null) is null).
// - server/domain/ledger.ts, toMillicredits: `>` against `>=` at the rounding tolerance, which no
//   three-decimal amount's floating-point error equals.
// - server/csv/paged-csv.ts, the stream's pull: `last === undefined ||` is there for the type of `last`; an
//   empty page is always shorter than a page, so the length test decides alone.
// - server/orgs/org-rules.ts, resendWaitSeconds: `wait <= 0` against `wait < 0`; at 0 both answer 0.
// - server/payments/stripe/invoice-reading.ts, invoicePayment: `?? []` against `?? ["Stryker was here"]`;
//   no stand-in array holds a reverse-charge tax line.
// - src/lib/grant-standing.ts, at: `iso === null` against `false`; Date.parse(null) is NaN, and
//   `now >= NaN` is false as `now >= Infinity` is, so a grant that never expires stays live either way.
// Options: https://stryker-mutator.io/docs/stryker-js/configuration
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: [
    "server/domain/ledger.ts",
    "server/domain/subscription.ts",
    "server/domain/berlin-time.ts",
    "server/domain/vat.ts",
    "server/domain/reversal.ts",
    "server/billing/fulfilment.ts",
    "server/billing/ports/fulfilment-keys.ts",
    "server/billing/invoice-rules.ts",
    // Stripe's events: the envelope, each family's reader and what they share.
    "server/payments/stripe/event-parser.ts",
    "server/payments/stripe/event-reading.ts",
    "server/payments/stripe/checkout-events.ts",
    "server/payments/stripe/card-events.ts",
    "server/payments/stripe/invoice-reading.ts",
    "server/payments/stripe/invoice-events.ts",
    "server/payments/stripe/auto-top-up-invoices.ts",
    "server/payments/stripe/customer-events.ts",
    "server/payments/stripe/charge-events.ts",
    "server/payments/local/retry-schedule.ts",
    "server/payments/stripe/signature.ts",
    "server/api-access/key-format.ts",
    // Whether a kept introspection may answer: its second, the key's expiry, drops (decision 034).
    "server/api-access/introspection-cache.ts",
    "server/usage/usage-range.ts",
    "server/usage/usage-csv.ts",
    "server/csv/paged-csv.ts",
    "server/operations/permissions.ts",
    "server/domain/vat-report.ts",
    "server/domain/idempotency.ts",
    "server/auth/mailbox.ts",
    "server/auth/totp.ts",
    // An app's code as both sides read it: digits, spaces and dashes.
    "contract/totp-code.ts",
    "server/auth/recovery-codes.ts",
    "contract/credit-costs.ts",
    // What free text may hold (reasons, names, idempotency keys): the audit log's storability.
    "contract/free-text.ts",
    // How every amount reads: invoices, billing pages, the console and the mails.
    "contract/money.ts",
    // The console's money input and which actions a role is offered; the customer's credit parts
    // (goodwill grants apart, issue 31).
    "src/lib/admin-actions.ts",
    "src/lib/credit-breakdown.ts",
    "src/lib/grant-standing.ts",
    "src/lib/key-caps.ts",
    // Organisations (issue 33): the role and change tables, names and masked addresses, member caps.
    "contract/org-roles.ts",
    "contract/account-area.ts",
    "contract/org-messages.ts",
    "server/domain/member-caps.ts",
    // Credit leases: how much one may hold, where, until when, and what an ending one gives back (decision 051).
    "server/domain/credit-leases.ts",
    // When the low-balance alert and a member cap's warning mail, once per fall (decision 051).
    "server/domain/alert-latches.ts",
    // Whether a charge goes through a lease this instance holds, and from which grants (decision 051).
    "server/billing/lease-decisions.ts",
    "server/billing/key-refusal.ts",
    "server/orgs/org-rules.ts",
    "server/operations/org-permissions.ts",
    "server/domain/billing-details.ts",
    "server/domain/billing-recipients.ts",
    "src/lib/org-view.ts",
    "src/lib/admin-org-actions.ts",
    // Which VAT ID states give reverse charge.
    "contract/vat-id-verification.ts",
    // Auto top-up (issue 34): settings, consent, trigger and failure rules; the monthly limit.
    "server/domain/auto-top-up.ts",
    "server/domain/auto-top-up-limit.ts",
    // The Billing section's money input (major units to cents) and what it asks consent for.
    "src/lib/auto-top-up-form.ts",
    // Metering's pipeline (issue 35): what is sent behind what, and what a failure rolls back.
    "server/billing/pipelined-batches.ts",
    // Which failures say a pinned connection is gone, and the answers it would leave unsettled.
    "server/db/lost-connection.ts",
    // What a charge run again after its COMMIT's answer was lost answers: its own charge, or a replay.
    "server/billing/retried-spends.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 95, low: 95, break: 95 },
  // Only mutants whose code or covering tests changed since the committed record are run again
  // (reports/stryker-incremental.json, committed): CI checks every file's score in about a minute.
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  // What `npm start` leaves in the work tree is no part of the code under test: data/ holds the
  // embedded database and the running server's operator socket, which cannot be copied into the
  // sandbox (ENXIO) when `npm start` ran before, or still runs.
  ignorePatterns: ["/data"],
  cleanTempDir: "always",
};
