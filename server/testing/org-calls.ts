// Helpers of the organisation API tests: calls as a member makes them, a team with members joined
// through real invitations, and keys written straight into the table (the key routes are tested
// with their own files).
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { Org } from "../../contract/orgs.ts";
import { hashSecretToken } from "../auth/secret-tokens.ts";
import { apiKeys } from "../db/schema/index.ts";
import { bearer } from "./api-access.ts";
import { latestMailTo, verifiedUser } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";

export type Person = Awaited<ReturnType<typeof verifiedUser>>;

export function call(t: TestApp, method: string, path: string, token?: string, body?: unknown) {
  return t.app.request(path, {
    method,
    headers: {
      ...(token ? bearer(token) : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

export async function createTeam(t: TestApp, owner: Person, name = "Acme Labs"): Promise<Org> {
  return json<Org>(await call(t, "POST", "/v1/orgs", owner.accessToken, { name }), 201);
}

/** Invites `who` and returns the link's token (from the mail). */
export async function invite(t: TestApp, org: Org, by: Person, email: string, role: string) {
  await json(await call(t, "POST", `/v1/orgs/${org.id}/invitations`, by.accessToken, { email, role }), 201);
  return (await latestMailTo(t, email, "invited you")).token;
}

/** A verified user who joined `org` with `role` through an invitation from `by`. */
export async function member(t: TestApp, org: Org, by: Person, name: string, role: string): Promise<Person> {
  const person = await verifiedUser(t, name);
  const token = await invite(t, org, by, person.email, role);
  await json(await call(t, "POST", `/v1/invitations/${token}/accept`, person.accessToken), 200);
  return person;
}

let keyCounter = 0;
/** An API key of `orgId` made by `createdBy`, as the key routes store one. */
export async function insertKey(t: TestApp, orgId: string, createdBy: string, shared = false) {
  keyCounter += 1;
  const id = `k${String(keyCounter).padStart(3, "0")}${randomBytes(6).toString("hex")}`.slice(0, 12);
  await t.deps.db.insert(apiKeys).values({
    id,
    userId: orgId,
    createdBy,
    shared,
    name: `key ${keyCounter}`,
    prefix: `gpk_${id}`,
    secretHash: hashSecretToken(id),
    monthlyCreditLimit: shared ? 1_000_000 : null,
    createdAt: t.clock.now(),
  });
  return id;
}

/** Ten minutes and a second later: the tokens signed in before ask for the password again. */
export const STALE = 10 * 60 * 1000 + 1000;
