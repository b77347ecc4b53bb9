import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openTestDatabase, TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import { insertUser, isUniqueViolation } from "../accounts/users.ts";
import { openPglite } from "./client.ts";
import { DatabaseLockedError } from "./pglite-lock.ts";

describe.each(TEST_DATABASES)("schema and migrations (%s)", (kind) => {
  it("enforces unique usernames and addresses regardless of case, in the database itself", async () => {
    const database = await openTestDatabase(kind);
    try {
      const now = new Date();
      await insertUser(database.db, { username: "ann", email: "ann@example.com", passwordHash: "h", now });
      const dupName = await insertUser(database.db, {
        username: "ANN",
        email: "x@example.com",
        passwordHash: "h",
        now,
      }).catch((e: unknown) => e);
      expect(isUniqueViolation(dupName)).toBe(true);
      const dupEmail = await insertUser(database.db, {
        username: "bob",
        email: "ANN@example.com",
        passwordHash: "h",
        now,
      }).catch((e: unknown) => e);
      expect(isUniqueViolation(dupEmail)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

describe("PGlite on disk", () => {
  it("keeps data across a restart and lets only one process open the folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pglite-"));
    try {
      const first = await openPglite(dataDir);
      try {
        await first.migrate();
        await insertUser(first.db, {
          username: "ann",
          email: "ann@example.com",
          passwordHash: "h",
          now: new Date(),
        });
        await expect(openPglite(dataDir)).rejects.toBeInstanceOf(DatabaseLockedError);
      } finally {
        // Closed even when an assertion fails: the API tests' workers share modules and live on.
        await first.close();
      }

      const second = await openPglite(dataDir);
      try {
        await second.migrate();
        const rows = await second.db.query.users.findMany();
        expect(rows.map((r) => r.username)).toEqual(["ann"]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000); // a new on-disk PGlite runs initdb first: seconds, more on a busy machine
});
