// Tables of the account service: users and the single-use tokens mailed to them.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/** `user` is every customer; `support` and `admin` are staff (OPERATIONS.md has what each may do). */
export const userRole = pgEnum("user_role", ["user", "support", "admin"]);

/** What a mailed token is good for; each purpose has its own lifetime (24 h and 1 h). */
export const userTokenPurpose = pgEnum("user_token_purpose", ["email_verification", "password_reset"]);

const timestamps = {
  // Set from the injected clock by the code that writes the row; the database default only
  // covers rows written by hand.
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey(),
    /** As the user typed it; unique regardless of case (see the index). */
    username: text("username").notNull(),
    /** Trimmed, domain lower-cased; unique regardless of case (see the index). */
    email: text("email").notNull(),
    /** argon2id PHC string. */
    passwordHash: text("password_hash").notNull(),
    role: userRole("role").notNull().default("user"),
    emailVerified: boolean("email_verified").notNull().default(false),
    emailVerifiedAt: timestamp("email_verified_at", { withTimezone: true }),
    /** Copied into every access token as `ver`; raising it ends every token issued before. */
    tokenVersion: integer("token_version").notNull().default(0),
    /**
     * "E-mail me when my balance falls below N credits": N in milli-credits, or null (the default)
     * for no alert. A spend that takes the balance from at least N to below it sends one mail.
     */
    lowBalanceThreshold: bigint("low_balance_threshold", { mode: "number" }),
    /**
     * Set by an admin (the console): while set, login answers 403 and no access token or API key
     * of the account is accepted. Read on every request with the user, so it holds on every
     * instance at once; clearing it restores the keys and tokens that were valid before.
     */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    /**
     * Set when a dispute was lost after the payment's credits were spent: nothing is charged to the
     * account until an admin clears it (ACCOUNT-SECURITY.md, OPERATIONS.md).
     */
    disputeHoldAt: timestamp("dispute_hold_at", { withTimezone: true }),
    /**
     * Set when the owner deleted the account (DELETE /v1/users/me): the row stays, pseudonymised,
     * for the invoices and payments that must be kept; username and e-mail are free again.
     */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    /** The last successful login (shown to support staff). */
    lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("users_username_lower_key").on(sql`lower(${t.username})`),
    // Mail providers treat the local part case-insensitively in practice: two accounts that
    // differ only by case would receive each other's reset links.
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    // The console's prefix search (`lower(x) like 'ann%'`): the unique indexes above compare by
    // the database's collation, which a LIKE prefix cannot use; text_pattern_ops can.
    index("users_username_prefix_idx").on(sql`lower(${t.username}) text_pattern_ops`),
    index("users_email_prefix_idx").on(sql`lower(${t.email}) text_pattern_ops`),
    // The console lists customers newest first, twenty at a time.
    index("users_created_idx").on(t.createdAt, t.id),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type Role = (typeof userRole.enumValues)[number];

export const userTokens = pgTable(
  "user_tokens",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: userTokenPurpose("purpose").notNull(),
    /** Hex SHA-256 of the token that was mailed; the token itself is never stored. */
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("user_tokens_token_hash_key").on(t.tokenHash),
    index("user_tokens_user_purpose_idx").on(t.userId, t.purpose),
  ],
);

export type UserTokenRow = typeof userTokens.$inferSelect;
export type UserTokenPurpose = (typeof userTokenPurpose.enumValues)[number];

/**
 * Access tokens signed out one at a time (POST /v1/logout), until they expire by themselves
 * (auth/token-revocations.ts keeps them in memory; this table is what a starting instance loads).
 */
export const revokedAccessTokens = pgTable(
  "revoked_access_tokens",
  {
    jti: text("jti").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("revoked_access_tokens_expires_at_idx").on(t.expiresAt)],
);

/**
 * The browsers an account has signed in from (ACCOUNT-SECURITY.md: a sign-in from a new one is
 * mailed about). A digest of the browser's name and system ("Chrome 131 on Windows"), not the
 * User-Agent itself: enough to tell a new browser, nothing to fingerprint anyone with.
 */
export const knownBrowsers = pgTable(
  "known_browsers",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    browserDigest: text("browser_digest").notNull(),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("known_browsers_user_browser_key").on(t.userId, t.browserDigest)],
);

/**
 * A change of e-mail address waiting for its link (ACCOUNT-SECURITY.md: the new address must be
 * verified before it takes over), or, once done, the old address's way back ("this was not me").
 * The link's token is kept as a SHA-256 hash, like the other mailed links.
 */
export const emailChanges = pgTable(
  "email_changes",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `change`: the link mailed to the new address; `revert`: the one mailed to the old one. */
    kind: text("kind", { enum: ["change", "revert"] }).notNull(),
    /** The address the account gets when the link is used. */
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /**
     * A change link's: the account's token version when the change was asked for. The link works
     * only while the account still has it: signing out everywhere, a new password or a reset ends a
     * change asked from a session they ended. Null for a way back, which is the owner's and outlives
     * them; and for change links used before migration 0021, which ended those still pending.
     */
    tokenVersion: integer("token_version"),
  },
  (t) => [
    uniqueIndex("email_changes_token_hash_key").on(t.tokenHash),
    index("email_changes_user_idx").on(t.userId),
  ],
);
