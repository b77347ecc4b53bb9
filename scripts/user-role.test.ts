import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findUserByUsername, insertUser } from "../server/accounts/users.ts";
import { openPglite } from "../server/db/client.ts";
import { withConfirmedAuthenticator } from "../tests/fixtures/second-factor.ts";
import { userRoleCommand } from "./user-role.ts";

async function run(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await userRoleCommand(
    args,
    env,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run user:role", () => {
  it("grants and takes away admin, matching the username case-insensitively", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "user-role-"));
    const seed = await openPglite(dataDir);
    await seed.migrate();
    await insertUser(seed.db, {
      username: "Ann",
      email: "ann@example.com",
      passwordHash: "h",
      now: new Date(),
    });
    await withConfirmedAuthenticator(seed.db, "ann");
    await seed.close();

    const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };
    expect(await run(["ann", "admin"], env)).toEqual({
      code: 0,
      out: "Ann now has the role admin.",
      err: "",
    });
    const unknown = await run(["nobody", "admin"], env);
    expect(unknown).toMatchObject({ code: 1, err: 'No user named "nobody".' });
    const support = await run(["Ann", "support"], env);
    expect(support).toMatchObject({ code: 0, out: "Ann now has the role support." });
    const held = await openPglite(dataDir);
    expect((await findUserByUsername(held.db, "ann"))?.role).toBe("support");
    await held.close();
    expect((await run(["Ann", "user"], env)).code).toBe(0);

    const check = await openPglite(dataDir);
    expect((await findUserByUsername(check.db, "ann"))?.role).toBe("user");
    await check.close();
  }, 120_000); // a new on-disk PGlite runs initdb first: seconds, more on a busy machine

  it.each([
    [[], /Usage/],
    [["ann"], /Usage/],
    [["ann", "root"], /Unknown role "root"\. Roles: user, support, admin\./],
    [["ann", "admin", "extra"], /Usage/],
  ])("refuses %j with a clear message", async (args, message) => {
    const result = await run(args, {});
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
  });

  it("reports a bad configuration instead of crashing", async () => {
    const result = await run(["ann", "admin"], { NODE_ENV: "production" });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/JWT_SIGNING_KEY: required/);
  });
});
