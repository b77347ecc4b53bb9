// Two-factor sign-in turned on over HTTP against a running server (the system tests' and the
// console benchmark's staff need it for /v1/admin): the code computed from the secret the setup
// answers. Answers the new access token, which counts both factors.
import { totpCode } from "../auth/totp.ts";

export async function turnOnTwoFactorOverHttp(origin: string, accessToken: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const { secret } = (await (await post("/v1/users/me/mfa/totp", {})).json()) as { secret: string };
  const confirmed = await post("/v1/users/me/mfa/totp/confirm", { code: totpCode(secret, new Date()) });
  if (confirmed.status !== 200)
    throw new Error(`two-factor setup: ${confirmed.status} ${await confirmed.text()}`);
  return ((await confirmed.json()) as { access_token: string }).access_token;
}
