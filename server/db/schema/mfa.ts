// Two-factor sign-in (ACCOUNT-SECURITY.md): an account's TOTP factor, its recovery codes, and the
// sign-in steps waiting for a second factor. No secret is stored as it was shown: the TOTP secret
// is sealed and the codes and step tokens are digests (auth/mfa-secrets.ts, auth/secret-tokens.ts).
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";

export const totpFactors = pgTable("totp_factors", {
  /** One authenticator per account: setting up a new one replaces a pending one. */
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** The Base32 secret sealed with AES-256-GCM for this user. */
  sealedSecret: text("sealed_secret").notNull(),
  /** Null while set up but not yet confirmed with a code: two-factor is on once this is set. */
  confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
  /** The time step of the last code accepted: a code is accepted once (auth/totp.ts). */
  lastUsedStep: bigint("last_used_step", { mode: "number" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
});

export type TotpFactorRow = typeof totpFactors.$inferSelect;

export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** HMAC-SHA-256 of the normalised code. */
    codeDigest: text("code_digest").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("recovery_codes_user_digest_key").on(t.userId, t.codeDigest)],
);

/**
 * A sign-in whose password was right and whose second factor is awaited: the `mfa_token` of
 * POST /v1/token's 403 (5 minutes, 5 tries, single use).
 */
export const mfaChallenges = pgTable(
  "mfa_challenges",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** Wrong codes given so far; the step ends at the limit. */
    failedTries: integer("failed_tries").notNull().default(0),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("mfa_challenges_token_hash_key").on(t.tokenHash),
    index("mfa_challenges_expires_at_idx").on(t.expiresAt),
  ],
);
