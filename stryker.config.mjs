// Mutation testing of the money rules (npm run test:mutation; about 5 minutes on 2 cores, not part
// of npm test): Stryker changes the pure billing modules one fault at a time and runs their unit
// tests; a fault no test notices is a gap. Each file must stay at 95 % or more. Survivors that are
// truly equivalent (no input can tell them apart) are disabled in the source with a
// `// Stryker disable next-line <mutator>: <why>` comment at the line. There are four such lines:
// - server/domain/subscription.ts, renewalFailed and subscriptionEnded: `state.status === "free" ||`
//   is there for TypeScript's narrowing; FREE has no subscriptionId, so the other test decides alone.
// - server/domain/subscription.ts, toUserSubscription: `scheduledProductId === null ? null : name(...)`
//   is null either way (name(null) is null).
// - server/domain/ledger.ts, toMillicredits: `>` against `>=` at the rounding tolerance, which no
//   three-decimal amount's floating-point error equals.
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
    "server/billing/fulfilment.ts",
    "server/billing/ports/fulfilment-keys.ts",
    "server/payments/local/retry-schedule.ts",
    "server/payments/stripe/signature.ts",
    "server/api-access/key-format.ts",
    "contract/credit-costs.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 95, low: 95, break: 95 },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
