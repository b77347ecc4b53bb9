// Who the console's pages are for: the roles of OPERATIONS.md's staff.
export const STAFF = ["support", "admin"] as const;
export const ADMINS = ["admin"] as const;
