// Tables of API access: the API keys customers give their programs, and the service keys the
// generation service authenticates with. A key is stored only as the SHA-256 of its full text
// (server/api-access/key-format.ts); the id is the part of the key that finds the row.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { organizations } from "./organizations.ts";

const at = (name: string) => timestamp(name, { withTimezone: true });

/** A customer's key. Revoking sets revoked_at (the row stays, so usage history can still name it). */
export const apiKeys = pgTable(
  "api_keys",
  {
    /** The key id, also written inside the key itself. */
    id: text("id").primaryKey(),
    /** The organisation the key spends (decision 027: the column keeps its name). */
    userId: uuid("user_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /**
     * The member who made it. Null only for a key an instance of the previous version made during
     * a rolling deploy: such a key is its personal organisation's, made by that user (createdByOf).
     */
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "cascade" }),
    /** A shared key (owners only): no member's removal revokes it and no member cap counts it. */
    shared: boolean("shared").notNull().default(false),
    name: text("name").notNull(),
    /** What the list shows of the key: its prefix and id (the secret part never). */
    prefix: text("prefix").notNull(),
    /** Hex SHA-256 of the whole key. */
    secretHash: text("secret_hash").notNull(),
    /** Milli-credits this key may spend per Berlin calendar month; null: no limit but the balance. */
    monthlyCreditLimit: bigint("monthly_credit_limit", { mode: "number" }),
    /** Feature ids this key may be charged for; null: every feature. */
    features: jsonb("features").$type<string[]>(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at"),
    /** Written at most once a minute per key (server/api-access/last-used.ts). */
    lastUsedAt: at("last_used_at"),
    revokedAt: at("revoked_at"),
  },
  (t) => [
    index("api_keys_user_idx").on(t.userId, t.createdAt),
    // The keys a member made, in every organisation (revoke-all, removal, disabling).
    index("api_keys_created_by_idx").on(t.createdBy),
    // The console finds a customer by the start of a key ("gpk_3xT9…" quoted in an e-mail).
    index("api_keys_id_prefix_idx").on(sql`${t.id} text_pattern_ops`),
    check("api_keys_limit_positive", sql`${t.monthlyCreditLimit} is null or ${t.monthlyCreditLimit} > 0`),
  ],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Milli-credits charged with each key per Berlin calendar month, kept by the spend that charges them
 * (in its transaction, under the user's row lock): the monthly limit and introspection read one row
 * instead of summing the month's spends, which grow with every generation.
 */
export const apiKeyUsage = pgTable(
  "api_key_usage",
  {
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    /** The first day of the Berlin month, e.g. 2026-11-01. */
    month: date("month").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    /**
     * What open credit leases of the key hold of its month's limit (decision 051). Null reads as 0:
     * the code before it inserts every column from JSON (db/json-rows.ts), and would send a NULL
     * into a NOT NULL column during a rolling upgrade.
     */
    reserved: bigint("reserved", { mode: "number" }).default(0),
  },
  (t) => [
    primaryKey({ columns: [t.apiKeyId, t.month] }),
    check("api_key_usage_reserved_positive", sql`${t.reserved} >= 0`),
  ],
);

/** A key of a service (the generation API), made by an operator on the command line; no user. */
export const serviceKeys = pgTable("service_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  prefix: text("prefix").notNull(),
  secretHash: text("secret_hash").notNull(),
  /** "introspect", "credits:consume". */
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  createdAt: at("created_at").notNull(),
  lastUsedAt: at("last_used_at"),
  revokedAt: at("revoked_at"),
});
export type ServiceKeyRow = typeof serviceKeys.$inferSelect;
