// Service keys: the credentials of the generation service, made by an operator on the command line
// (`npm run service-key`), stored hashed, belonging to no user. Each carries scopes: `introspect`
// lets it ask POST /v1/introspect, `credits:consume` lets it charge with POST /v1/credits/consume.
import { desc, eq, sql } from "drizzle-orm";
import { preparedPerHandle } from "../db/prepared.ts";
import { type ServiceKeyRow, serviceKeys } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { generateKey, keyMatches, parseKey } from "./key-format.ts";

export const SERVICE_SCOPES = ["introspect", "credits:consume"] as const;
export type ServiceScope = (typeof SERVICE_SCOPES)[number];

export function isServiceScope(value: string): value is ServiceScope {
  return (SERVICE_SCOPES as readonly string[]).includes(value);
}

export interface ServiceKeyInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function info(row: ServiceKeyRow): ServiceKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** Makes a key; the answer holds the key itself, which is shown once and never stored. */
export async function createServiceKey(
  db: DbOrTx,
  name: string,
  scopes: ServiceScope[],
  now: Date,
): Promise<ServiceKeyInfo & { key: string }> {
  const generated = generateKey("service");
  const [row] = await db
    .insert(serviceKeys)
    .values({
      id: generated.id,
      name,
      prefix: generated.prefix,
      secretHash: generated.hash,
      scopes: [...new Set(scopes)],
      createdAt: now,
    })
    .returning();
  return { ...info(row as ServiceKeyRow), key: generated.key };
}

export async function listServiceKeys(db: DbOrTx): Promise<ServiceKeyInfo[]> {
  const rows = await db.select().from(serviceKeys).orderBy(desc(serviceKeys.createdAt));
  return rows.map(info);
}

/** Revokes the key; undefined when there is no such key, the earlier answer when it was revoked before. */
export async function revokeServiceKey(
  db: DbOrTx,
  id: string,
  now: Date,
): Promise<ServiceKeyInfo | undefined> {
  const [row] = await db.select().from(serviceKeys).where(eq(serviceKeys.id, id));
  if (!row) return undefined;
  if (row.revokedAt) return info(row);
  const [updated] = await db
    .update(serviceKeys)
    .set({ revokedAt: now })
    .where(eq(serviceKeys.id, id))
    .returning();
  return info(updated as ServiceKeyRow);
}

const serviceKeyById = preparedPerHandle((db) =>
  db
    .select()
    .from(serviceKeys)
    .where(eq(serviceKeys.id, sql.placeholder("id")))
    .prepare("service_key_by_id"),
);

/** The live service key a presented key text is, or undefined. */
export async function authenticateServiceKey(db: DbOrTx, key: string): Promise<ServiceKeyRow | undefined> {
  const parsed = parseKey(key);
  if (parsed?.kind !== "service") return undefined;
  const [row] = await serviceKeyById(db).execute({ id: parsed.id });
  if (!row || row.revokedAt !== null) return undefined;
  return keyMatches(key, row.secretHash) ? row : undefined;
}

/** How long a process trusts a service key it has checked: a revoked service key stops within this. */
export const SERVICE_KEY_CACHE_MS = 1000;

export type ServiceKeyCheck = (key: string) => Promise<ServiceKeyRow | undefined>;

/**
 * authenticateServiceKey, remembering a valid key for SERVICE_KEY_CACHE_MS: the generation service
 * sends the same key with every call, and this saves the read on almost all of them. Only keys that
 * passed are remembered (a wrong key is rate-limited instead), so the map holds the few real ones.
 */
export function cachedServiceKeyCheck(db: DbOrTx, nowMs: () => number = Date.now): ServiceKeyCheck {
  const checked = new Map<string, { row: ServiceKeyRow; until: number }>();
  return async (key) => {
    const known = checked.get(key);
    if (known && known.until > nowMs()) return known.row;
    checked.delete(key);
    const row = await authenticateServiceKey(db, key);
    if (row) checked.set(key, { row, until: nowMs() + SERVICE_KEY_CACHE_MS });
    return row;
  };
}
