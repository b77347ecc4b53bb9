// Small helpers that make API tests read like the calls the portal makes.
import { expect } from "vitest";
import type { TestApp } from "./test-app.ts";

/** Anything with Hono's `request()`: the whole app, or a small app built by a test. */
export interface AppLike {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

export const GOOD_PASSWORD = "Abcdef1!";

let counter = 0;
/** A new client address (sent as X-Forwarded-For), so per-IP limits of one call do not hit another. */
export function freshIp(): string {
  counter += 1;
  return `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
}

export function fromIp(ip = freshIp()): Record<string, string> {
  return { "X-Forwarded-For": ip };
}

export function postJson(app: AppLike, path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function postForm(
  app: AppLike,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return app.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function getJson(app: AppLike, path: string, token?: string) {
  return app.request(path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

export function registration(name: string, overrides: Record<string, unknown> = {}) {
  return {
    email: `${name}@example.com`,
    username: name,
    password: GOOD_PASSWORD,
    confirmPassword: GOOD_PASSWORD,
    ...overrides,
  };
}

/** The token at the end of a mailed link (`.../verify-email/{token}`). */
export function tokenFromLink(link: string): string {
  return decodeURIComponent(link.split("?")[0]?.split("/").at(-1) ?? "");
}

/**
 * The newest mail to `to` (whose subject has `subject` in it, when given), and the token of its
 * link. Give the subject when other mails to the address go out at about the same time: two
 * written in the same millisecond have no newest.
 */
export async function latestMailTo(t: TestApp, to: string, subject?: string) {
  const mail = (await t.mails()).find(
    (m) => m.to.toLowerCase() === to.toLowerCase() && (subject === undefined || m.subject.includes(subject)),
  );
  if (!mail) throw new Error(`no mail to ${to}${subject ? ` about "${subject}"` : ""}`);
  const link = mail.links[0];
  if (!link) throw new Error(`mail to ${to} has no link`);
  return { mail, link, token: tokenFromLink(link) };
}

export async function register(t: TestApp, name: string, overrides: Record<string, unknown> = {}) {
  const res = await postJson(t.app, "/v1/register", registration(name, overrides), fromIp());
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; username: string; email: string };
}

export async function login(t: TestApp, username: string, password = GOOD_PASSWORD) {
  return postForm(t.app, "/v1/token", { username, password }, fromIp());
}

/** Registers, verifies through the mailed link and logs in: an account ready to use. */
export async function verifiedUser(t: TestApp, name: string, overrides: Record<string, unknown> = {}) {
  const user = await register(t, name, overrides);
  const { token } = await latestMailTo(t, user.email);
  expect((await postJson(t.app, "/v1/user/verify-email", { token })).status).toBe(200);
  const res = await login(t, name);
  expect(res.status).toBe(200);
  const { access_token } = (await res.json()) as { access_token: string };
  return { ...user, accessToken: access_token };
}
