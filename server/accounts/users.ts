// Queries on the users table. Usernames and addresses compare case-insensitively, matching the
// unique indexes on lower(username) and lower(email).
import { eq, sql } from "drizzle-orm";
import { preparedPerHandle } from "../db/prepared.ts";
import { type Role, type UserRow, users } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";

/** A user id as the database writes it: a UUID in lower case (RFC 9562 §4). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID from outside (a path, a body, a search) in its one canonical form: lower case. RFC 9562
 * reads UUIDs case-insensitively, and so does PostgreSQL's uuid type, so an upper-case id names the
 * same row; made canonical at the edge, every rule and every audit hash sees the form the database
 * stores (decision 022). Anything that is not a UUID is returned as it is, and names nothing.
 */
export function canonicalUuid(raw: string): string {
  return UUID_ANY_CASE.test(raw) ? raw.toLowerCase() : raw;
}

/**
 * True for a string that can be a user id (a lower-case UUID): anything else names no user. Strict
 * on case, so that an id which skipped canonicalUuid is refused, never matched under another form.
 */
export function isUserId(id: string): boolean {
  return UUID.test(id);
}

// Every authenticated request runs this one (server/http/auth-guard.ts): prepared.
const userById = preparedPerHandle((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .limit(1)
    .prepare("user_by_id"),
);

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  if (!isUserId(id)) return undefined;
  const [row] = await userById(db).execute({ id });
  return row;
}

/**
 * Locks the account's row until the transaction ends, and answers it as it is now. Every
 * transaction that ends an account's mailed links (e-mail changes and their ways back, reset and
 * verification links) takes this lock before it touches a link. Taken in the other order, two such
 * transactions (a way back and a reset link followed at once, say) each held a row the other
 * needed, and PostgreSQL ended one of them with a deadlock.
 */
export async function lockAccount(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).for("update");
  return row;
}

export async function findUserByUsername(db: DbOrTx, username: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`)
    .limit(1);
  return row;
}

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row;
}

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string;
  now: Date;
}

export async function insertUser(db: DbOrTx, user: NewUser): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({
      id: crypto.randomUUID(),
      username: user.username,
      email: user.email,
      passwordHash: user.passwordHash,
      createdAt: user.now,
      updatedAt: user.now,
    })
    .returning();
  if (!row) throw new Error("insert into users returned no row");
  return row;
}

/** The role of `username`, changed; undefined when there is no such user. */
export async function setUserRole(
  db: DbOrTx,
  username: string,
  role: Role,
  now: Date,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ role, updatedAt: now })
    .where(sql`lower(${users.username}) = lower(${username})`)
    .returning();
  return row;
}

/** Is this a unique-constraint violation (PostgreSQL 23505), as raised by either driver through Drizzle? */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
