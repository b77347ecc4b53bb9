// Two-factor sign-in (ACCOUNT-SECURITY.md): an account's TOTP factor, its recovery codes, and the
// sign-in steps waiting for a second factor. No secret is stored as it was shown: the TOTP secret
// is sealed and the codes and step tokens are digests (auth/mfa-secrets.ts, auth/secret-tokens.ts).
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
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

/**
 * An account's passkeys (WebAuthn credentials): passwordless sign-in, and a second factor at the
 * code step. Only the public key is here; the private key never leaves the authenticator.
 */
export const passkeys = pgTable(
  "passkeys",
  {
    /** The credential id, Base64URL, as the authenticator made it. */
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** What the owner called it ("MacBook", "YubiKey"). */
    name: text("name").notNull(),
    /** The COSE public key, Base64URL. */
    publicKey: text("public_key").notNull(),
    /** The authenticator's signature counter: one that goes backwards is a cloned key. */
    counter: bigint("counter", { mode: "number" }).notNull(),
    transports: jsonb("transports").$type<string[]>().notNull(),
    /** Synced across the owner's devices (a platform passkey) or bound to one (a security key). */
    backedUp: boolean("backed_up").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [index("passkeys_user_idx").on(t.userId)],
);

export type PasskeyRow = typeof passkeys.$inferSelect;

/**
 * The challenges handed to a browser for a WebAuthn ceremony: each used once, within 5 minutes.
 * `userId` is null for a passwordless sign-in, where the passkey itself says whose it is.
 */
export const webauthnChallenges = pgTable(
  "webauthn_challenges",
  {
    challenge: text("challenge").primaryKey(),
    purpose: text("purpose", { enum: ["register", "sign_in", "second_factor", "reauth"] }).notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("webauthn_challenges_expires_at_idx").on(t.expiresAt)],
);
