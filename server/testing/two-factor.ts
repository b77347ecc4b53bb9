// Helpers for tests of two-factor sign-in: turning it on through the API as a person would (the
// code computed from the secret the setup answers), and the code step of a sign-in.
import { expect } from "vitest";
import { totpCode } from "../auth/totp.ts";
import { bearer } from "./api-access.ts";
import { fromIp, GOOD_PASSWORD, postForm, postJson } from "./api-client.ts";
import type { TestApp } from "./test-app.ts";
import { setUpTwoFactor } from "./two-factor-over-http.ts";

export const MFA_PATH = "/v1/users/me/mfa";

/** A JSON call with a bearer token (POST unless told). */
export function callAs(
  t: TestApp,
  path: string,
  token: string,
  body?: unknown,
  method: "POST" | "DELETE" = "POST",
) {
  return t.app.request(path, {
    method,
    headers: { ...bearer(token), "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The code an authenticator app shows `stepsAhead` periods from the test clock's now. */
export const codeAt = (t: TestApp, secret: string, stepsAhead = 0) =>
  totpCode(secret, new Date(t.clock.now().getTime() + stepsAhead * 30_000));

/** Sets up an authenticator and confirms it on the test clock: the secret, codes and new token. */
export function turnOnTwoFactor(t: TestApp, accessToken: string) {
  return setUpTwoFactor((path, body) => callAs(t, path, accessToken, body), t.clock.now());
}

/** POST /v1/token answers the code step: its mfa_token. */
export async function passwordStep(t: TestApp, username: string, ip = "198.51.100.20") {
  const res = await postForm(t.app, "/v1/token", { username, password: GOOD_PASSWORD }, fromIp(ip));
  expect(res.status, await res.clone().text()).toBe(403);
  return ((await res.json()) as { mfa_token: string }).mfa_token;
}

export const codeStep = (t: TestApp, mfaToken: string, code: string, ip = "198.51.100.20") =>
  postJson(t.app, "/v1/token/mfa", { mfa_token: mfaToken, code }, fromIp(ip));

/** Both steps of a sign-in with two factors; answers the access token. */
export async function signInWithCode(t: TestApp, username: string, code: string) {
  const res = await codeStep(t, await passwordStep(t, username), code);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}
