import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { freeGrantMailboxes } from "../db/schema/index.ts";
import { getJson, verifiedUser } from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { TEST_FREE_CREDITS } from "../testing/test-app.ts";
import { mailboxDigest } from "./free-grant-mailboxes.ts";

describe.each(TEST_DATABASES)("one free grant per mailbox (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const balanceOf = async (token: string) =>
    ((await (await getJson(ctx.t.app, "/v1/users/me", token)).json()) as { credit_balance: number })
      .credit_balance;

  it("grants the free credits to the first account of a mailbox only", async () => {
    const overrides = (email: string) => ({ email });
    const ann = await verifiedUser(ctx.t, "ann", overrides("ann@gmail.com"));
    const plus = await verifiedUser(ctx.t, "ann2", overrides("Ann+2@gmail.com"));
    const dots = await verifiedUser(ctx.t, "ann3", overrides("a.n.n@googlemail.com"));
    const other = await verifiedUser(ctx.t, "bob", overrides("bob@gmail.com"));
    expect(await balanceOf(ann.accessToken)).toBe(TEST_FREE_CREDITS);
    expect(await balanceOf(plus.accessToken)).toBe(0);
    expect(await balanceOf(dots.accessToken)).toBe(0);
    expect(await balanceOf(other.accessToken)).toBe(TEST_FREE_CREDITS);
    // Digests only: no address is kept beside the accounts.
    const rows = await ctx.database.db.select().from(freeGrantMailboxes);
    expect(rows.map((r) => r.mailboxDigest).sort()).toEqual(
      [mailboxDigest("ann@gmail.com"), mailboxDigest("bob@gmail.com")].sort(),
    );
  });

  it("the migration's backfill computes the same digests as the server", async () => {
    const db = ctx.database.db;
    for (const [name, email] of [
      ["ann", "Ann.Smith+x@Example.com"],
      ["gee", "G.e.e+tag@googlemail.com"],
    ] as const) {
      await verifiedUser(ctx.t, name, { email });
    }
    await db.delete(freeGrantMailboxes);
    const migration = readFileSync(
      new URL("../db/migrations/0008_free_grant_mailboxes.sql", import.meta.url),
      "utf8",
    );
    const backfill = migration.slice(migration.indexOf("INSERT INTO"));
    await db.execute(sql.raw(backfill));
    const rows = rowsOf<{ mailbox_digest: string }>(
      await db.execute(sql`select mailbox_digest from free_grant_mailboxes`),
    );
    expect(rows.map((r) => r.mailbox_digest).sort()).toEqual(
      [mailboxDigest("ann.smith@example.com"), mailboxDigest("gee@gmail.com")].sort(),
    );
  });
});
