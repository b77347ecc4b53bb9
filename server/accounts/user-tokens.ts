// The single-use tokens mailed for e-mail verification (24 h) and password reset (1 h). Only their
// SHA-256 is stored; using one is one conditional UPDATE, so two concurrent uses cannot both win.
import { and, eq, gt, isNull } from "drizzle-orm";
import { generateSecretToken, hashSecretToken } from "../auth/secret-tokens.ts";
import { type UserTokenPurpose, type UserTokenRow, userTokens } from "../db/schema/index.ts";
import type { DbOrTx } from "../db/types.ts";
import { lockAccount } from "./users.ts";

const HOUR = 60 * 60 * 1000;

export const TOKEN_LIFETIME_MS: Record<UserTokenPurpose, number> = {
  email_verification: 24 * HOUR,
  password_reset: 1 * HOUR,
};

/** Creates a token for `userId` and returns it in clear: the only moment it exists outside a mail. */
export async function issueUserToken(
  db: DbOrTx,
  args: { userId: string; purpose: UserTokenPurpose; now: Date },
): Promise<string> {
  const token = generateSecretToken();
  await db.insert(userTokens).values({
    id: crypto.randomUUID(),
    userId: args.userId,
    purpose: args.purpose,
    tokenHash: hashSecretToken(token),
    expiresAt: new Date(args.now.getTime() + TOKEN_LIFETIME_MS[args.purpose]),
    createdAt: args.now,
  });
  return token;
}

function usable(purpose: UserTokenPurpose, token: string, now: Date) {
  return and(
    eq(userTokens.tokenHash, hashSecretToken(token)),
    eq(userTokens.purpose, purpose),
    isNull(userTokens.usedAt),
    gt(userTokens.expiresAt, now),
  );
}

/** The token's row if it is unused and unexpired; does not use it up. */
export async function findUsableToken(
  db: DbOrTx,
  purpose: UserTokenPurpose,
  token: string,
  now: Date,
): Promise<UserTokenRow | undefined> {
  const [row] = await db
    .select()
    .from(userTokens)
    .where(usable(purpose, token, now))
    .limit(1);
  return row;
}

/** Uses the token up and returns its row, or undefined if it was unknown, used or expired. */
export async function consumeToken(
  db: DbOrTx,
  purpose: UserTokenPurpose,
  token: string,
  now: Date,
): Promise<UserTokenRow | undefined> {
  const [row] = await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(usable(purpose, token, now))
    .returning();
  return row;
}

/**
 * Uses a token as consumeToken does, having locked its account first (users.ts lockAccount): the
 * order every transaction that ends an account's links keeps.
 */
export async function consumeTokenOfLockedAccount(
  db: DbOrTx,
  purpose: UserTokenPurpose,
  token: string,
  now: Date,
): Promise<UserTokenRow | undefined> {
  const found = await findUsableToken(db, purpose, token, now);
  if (!found) return undefined;
  await lockAccount(db, found.userId);
  return consumeToken(db, purpose, token, now);
}

/** Ends every still-usable token of one purpose for a user. */
export async function revokeTokens(
  db: DbOrTx,
  userId: string,
  purpose: UserTokenPurpose,
  now: Date,
): Promise<void> {
  await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(and(eq(userTokens.userId, userId), eq(userTokens.purpose, purpose), isNull(userTokens.usedAt)));
}

/**
 * Ends every still-usable token of the account, whatever its purpose: when the address changes or
 * changes back, no reset or verification link mailed before may outlive it (issue 30: a stolen
 * session moved the address, asked for a reset there, and the link still worked after the revert).
 */
export async function revokeAllTokens(db: DbOrTx, userId: string, now: Date): Promise<void> {
  await db
    .update(userTokens)
    .set({ usedAt: now })
    .where(and(eq(userTokens.userId, userId), isNull(userTokens.usedAt)));
}
