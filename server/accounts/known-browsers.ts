// "Sign-in from a browser the account has not used before sends a mail, not every sign-in"
// (ACCOUNT-SECURITY.md). A browser is its name, major version and system as ua-parser-js reads
// them, kept as a digest per account. The account's first browser is only noted: the owner has
// just registered there, and a mail about it would teach them to ignore these mails.
import { hash } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { browserName } from "../audit/browser-name.ts";
import { knownBrowsers } from "../db/schema/index.ts";
import type { Db } from "../db/types.ts";

/** The browser the User-Agent names, as a mail shows it. */
export const browserLabel = (userAgent: string | null) => browserName(userAgent) ?? "an unknown browser";

/** Notes the browser of a sign-in; true when the account had signed in before, but never from it. */
export async function isNewBrowser(
  db: Db,
  userId: string,
  userAgent: string | null,
  now: Date,
): Promise<boolean> {
  const browserDigest = hash("sha256", `${userId}\u0000${browserLabel(userAgent)}`, "hex");
  const inserted = await db
    .insert(knownBrowsers)
    .values({ userId, browserDigest, firstSeenAt: now })
    .onConflictDoNothing()
    .returning({ userId: knownBrowsers.userId });
  if (inserted.length === 0) return false;
  const [known] = await db.select({ n: count() }).from(knownBrowsers).where(eq(knownBrowsers.userId, userId));
  return (known?.n ?? 0) > 1;
}
