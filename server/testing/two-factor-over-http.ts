// Turning two-factor sign-in on the way a person does it (the setup answers a secret, the code made
// from it confirms), through any way of sending a request: the in-process app of the API tests, or
// fetch against a running server (the system tests' and the console benchmark's staff, who need it
// for /v1/admin). Answers the secret, the recovery codes and the new token, which counts both factors.
import { totpCode } from "../auth/totp.ts";

/** Sends a JSON POST with the account's bearer token. */
export type PostAs = (path: string, body: unknown) => Response | Promise<Response>;

export async function setUpTwoFactor(post: PostAs, now: Date) {
  const started = await post("/v1/users/me/mfa/totp", {});
  if (started.status !== 201) throw new Error(`two-factor setup: ${started.status} ${await started.text()}`);
  const { secret } = (await started.json()) as { secret: string };
  const confirmed = await post("/v1/users/me/mfa/totp/confirm", { code: totpCode(secret, now) });
  if (confirmed.status !== 200)
    throw new Error(`two-factor confirmation: ${confirmed.status} ${await confirmed.text()}`);
  const body = (await confirmed.json()) as { recovery_codes: string[]; access_token: string };
  return { secret, recoveryCodes: body.recovery_codes, accessToken: body.access_token };
}

/** setUpTwoFactor against a running server at `origin`, on the machine's clock; the new token. */
export async function turnOnTwoFactorOverHttp(origin: string, accessToken: string): Promise<string> {
  const post: PostAs = (path, body) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  return (await setUpTwoFactor(post, new Date())).accessToken;
}
