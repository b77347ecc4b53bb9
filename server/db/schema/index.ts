// Every table of the database. One file per area; a new area (billing) adds its file and a line here,
// and drizzle-kit generates its migration from this index.
export * from "./accounts.ts";
export * from "./api-access.ts";
export * from "./audit.ts";
export * from "./auto-top-up.ts";
export * from "./billing.ts";
export * from "./credit-leases.ts";
export * from "./mfa.ts";
export * from "./organizations.ts";
