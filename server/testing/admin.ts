// Helpers for tests of the operator console: staff accounts and the admin calls made as they are.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { AdminPayment } from "../../contract/admin.ts";
import { auditLog, type Role, users } from "../db/schema/index.ts";
import { bearer } from "./api-access.ts";
import { fromIp, getJson, verifiedUser } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";
import { turnOnTwoFactor } from "./two-factor.ts";

export async function setRole(t: TestApp, userId: string, role: Role) {
  await t.deps.db.update(users).set({ role }).where(eq(users.id, userId));
}

/**
 * A verified account with `role` and two-factor sign-in on (staff need it for /v1/admin); its
 * token is the one the setup answers, which counts the second factor.
 */
export async function staffMember(t: TestApp, name: string, role: Role) {
  const user = await verifiedUser(t, name);
  await setRole(t, user.id, role);
  const { accessToken, secret } = await turnOnTwoFactor(t, user.accessToken);
  return { ...user, accessToken, totpSecret: secret };
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

/** The console's payments list of `customerId` (GET /v1/admin/customers/{id}/payments), as `token`. */
export async function customerPayments(t: TestApp, customerId: string, token: string) {
  return (await adminGet<{ data: AdminPayment[] }>(t, `/v1/admin/customers/${customerId}/payments`, token))
    .data;
}

/** What every test's setup writes to the audit log: sign-ins, the staff's two-factor setup, keys made. */
const isSetup = (action: string) =>
  action.startsWith("login.") || action === "mfa.enabled" || action === "api_key.create";

/**
 * The audit rows about `subjectUserId`, oldest first; without the sign-ins (login.*) and two-factor
 * setups, which every test's setup writes, unless `withSignIns`.
 */
export async function auditRowsAbout(t: TestApp, subjectUserId: string, withSignIns = false) {
  const rows = await t.deps.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.subjectUserId, subjectUserId))
    .orderBy(auditLog.seq);
  return withSignIns ? rows : rows.filter((row) => !isSetup(row.action));
}

/** Every audit row but the sign-ins and two-factor setups the tests' setup writes, oldest first. */
export async function auditRowsWithoutSignIns(t: TestApp) {
  const rows = await t.deps.db.select().from(auditLog).orderBy(auditLog.seq);
  return rows.filter((row) => !isSetup(row.action));
}
