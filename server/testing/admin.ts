// Helpers for tests of the operator console: staff accounts and the admin calls made as they are.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { auditLog, type Role, users } from "../db/schema/index.ts";
import { bearer } from "./api-access.ts";
import { fromIp, getJson, login, verifiedUser } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";

export async function setRole(t: TestApp, userId: string, role: Role) {
  await t.deps.db.update(users).set({ role }).where(eq(users.id, userId));
}

/** A verified account with `role`, logged in after the change. */
export async function staffMember(t: TestApp, name: string, role: Role) {
  const user = await verifiedUser(t, name);
  await setRole(t, user.id, role);
  const res = await login(t, name);
  expect(res.status).toBe(200);
  return { ...user, accessToken: ((await res.json()) as { access_token: string }).access_token };
}

/** Sends an admin call with a JSON body (POST unless told) as `token`. */
export function adminCall(
  t: TestApp,
  path: string,
  token: string | undefined,
  body: unknown,
  method: "POST" | "DELETE" = "POST",
) {
  return t.app.request(path, {
    method,
    headers: {
      "Content-Type": "application/json",
      ...(token ? bearer(token) : {}),
      ...fromIp(),
    },
    body: JSON.stringify(body),
  });
}

export async function adminGet<T = Record<string, unknown>>(t: TestApp, path: string, token: string) {
  const res = await getJson(t.app, path, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

/**
 * The audit rows about `subjectUserId`, oldest first; without the sign-ins (login.*), which every
 * test's setup writes, unless `withSignIns`.
 */
export async function auditRowsAbout(t: TestApp, subjectUserId: string, withSignIns = false) {
  const rows = await t.deps.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.subjectUserId, subjectUserId))
    .orderBy(auditLog.seq);
  return withSignIns ? rows : rows.filter((row) => !row.action.startsWith("login."));
}

/** Every audit row but the sign-ins (login.*) the tests' setup writes, oldest first. */
export async function auditRowsWithoutSignIns(t: TestApp) {
  const rows = await t.deps.db.select().from(auditLog).orderBy(auditLog.seq);
  return rows.filter((row) => !row.action.startsWith("login."));
}
