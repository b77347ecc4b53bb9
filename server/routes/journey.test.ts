// The whole account journey through the API, as the portal drives it.

import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { TEST_DATABASES } from "../../tests/fixtures/test-db.ts";
import {
  GOOD_PASSWORD,
  getJson,
  latestMailTo,
  login,
  postJson,
  registration,
  tokenFromLink,
} from "../testing/api-client.ts";
import { useTestApp } from "../testing/suite.ts";
import { TEST_FREE_CREDITS, TEST_PORTAL_URL } from "../testing/test-app.ts";

const NEW_PASSWORD = "Changed7$";

describe.each(TEST_DATABASES)("account journey (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("register -> mail -> verify -> token -> me -> reset -> old token refused -> new password works", async () => {
    const { app } = ctx.t;

    // Register.
    const registered = await postJson(app, "/v1/register", registration("journey"));
    expect(registered.status).toBe(201);
    const { id } = (await registered.json()) as { id: string };

    // Not verified yet.
    expect((await login(ctx.t, "journey")).status).toBe(403);

    // The verification mail is in the outbox, read the way browser tests read it.
    await ctx.t.tasks.idle();
    const outbox = (await (await app.request("/_dev/mail.json")).json()) as {
      data: { to: string; links: string[] }[];
    };
    const verificationLink = outbox.data.find((m) => m.to === "journey@example.com")?.links[0] ?? "";
    expect(verificationLink.startsWith(`${TEST_PORTAL_URL}/verify-email/`)).toBe(true);

    // Verify.
    const verified = await postJson(app, "/v1/user/verify-email", { token: tokenFromLink(verificationLink) });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ detail: DETAIL.emailVerified });

    // Token.
    const tokenRes = await login(ctx.t, "journey");
    expect(tokenRes.status).toBe(200);
    const { access_token: oldToken } = (await tokenRes.json()) as { access_token: string };

    // Me.
    const me = await getJson(app, "/v1/users/me", oldToken);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      id,
      username: "journey",
      email_verified: true,
      // The free initial credits, granted on verification.
      credit_balance: TEST_FREE_CREDITS,
    });

    // Reset request -> mail -> check -> reset.
    expect(
      (await postJson(app, "/v1/user/password-reset-request", { email: "journey@example.com" })).status,
    ).toBe(200);
    const { link: resetLink, token: resetToken } = await latestMailTo(ctx.t, "journey@example.com");
    expect(resetLink.startsWith(`${TEST_PORTAL_URL}/reset-password/`)).toBe(true);
    expect(await (await getJson(app, `/v1/user/password-reset-check/${resetToken}`)).json()).toEqual({
      valid: true,
    });
    const reset = await postJson(app, "/v1/user/password-reset", {
      token: resetToken,
      password: NEW_PASSWORD,
    });
    expect(reset.status).toBe(200);

    // The old token is refused.
    const refused = await getJson(app, "/v1/users/me", oldToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe("Bearer");

    // The old password is refused; the new one works.
    expect((await login(ctx.t, "journey", GOOD_PASSWORD)).status).toBe(400);
    const again = await login(ctx.t, "journey", NEW_PASSWORD);
    expect(again.status).toBe(200);
    const { access_token: newToken } = (await again.json()) as { access_token: string };
    expect((await getJson(app, "/v1/users/me", newToken)).status).toBe(200);

    // Nothing secret reached the logs on the way: passwords, access tokens, mailed tokens, hashes.
    const logs = ctx.t.logs.join("\n");
    for (const secret of [
      GOOD_PASSWORD,
      NEW_PASSWORD,
      oldToken,
      newToken,
      resetToken,
      tokenFromLink(verificationLink),
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain("$argon2id$");
    expect(logs).toContain('"path":"/v1/user/password-reset-check/[redacted]"');
  });
});
