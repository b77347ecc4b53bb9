import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import type { AccountHooks } from "../../accounts/hooks.ts";
import { findUserByUsername } from "../../accounts/users.ts";
import { fromIp, latestMailTo, login, postJson, register } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { createTestApp } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("e-mail verification (%s)", (kind) => {
  const verified: string[] = [];
  const hooks: AccountHooks = {
    onEmailVerified: async (_tx, event) => {
      verified.push(event.userId);
    },
  };
  const ctx = useTestApp(kind, { hooks });
  const verify = (token: unknown) => postJson(ctx.t.app, "/v1/user/verify-email", { token });
  const resend = (email: string, headers = fromIp()) =>
    postJson(ctx.t.app, "/v1/user/resend-email-verification", { email }, headers);

  describe("POST /v1/user/verify-email", () => {
    it("verifies the address with the mailed token, once, and runs the billing hook once", async () => {
      verified.length = 0;
      const user = await register(ctx.t, "ann");
      const { token } = await latestMailTo(ctx.t, user.email);

      const res = await verify(token);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ detail: DETAIL.emailVerified });
      expect((await findUserByUsername(ctx.database.db, "ann"))?.emailVerified).toBe(true);
      expect((await login(ctx.t, "ann")).status).toBe(200);
      expect(verified).toEqual([user.id]);

      const again = await verify(token);
      expect(again.status).toBe(400);
      expect(await again.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
      expect(verified).toEqual([user.id]);
    });

    it("grants once even when the user holds several links", async () => {
      verified.length = 0;
      const user = await register(ctx.t, "ann");
      const first = await latestMailTo(ctx.t, user.email);
      expect((await resend(user.email)).status).toBe(200);
      const second = await latestMailTo(ctx.t, user.email);
      expect(second.token).not.toBe(first.token);
      expect((await verify(second.token)).status).toBe(200);
      // The older link died with the verification.
      expect((await verify(first.token)).status).toBe(400);
      expect(verified).toEqual([user.id]);
    });

    it("400 after 24 hours", async () => {
      const user = await register(ctx.t, "ann");
      const { token } = await latestMailTo(ctx.t, user.email);
      ctx.t.clock.advance(24 * 3600_000 + 1);
      expect((await verify(token)).status).toBe(400);
      expect((await login(ctx.t, "ann")).status).toBe(403);
    });

    it("keeps the verification undone when the hook fails (one transaction)", async () => {
      const failing = createTestApp(ctx.database.db, {
        hooks: {
          onEmailVerified: async () => {
            throw new Error("ledger unavailable");
          },
        },
      });
      const user = await register(failing, "ann");
      const { token } = await latestMailTo(failing, user.email);
      const res = await postJson(failing.app, "/v1/user/verify-email", { token });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ detail: DETAIL.internalError });
      expect((await findUserByUsername(ctx.database.db, "ann"))?.emailVerified).toBe(false);
      // The token was not used up either: the user can try again once the ledger is back.
      expect((await verify(token)).status).toBe(200);
    });

    it("400 for an unknown token", async () => {
      const res = await verify("unknown");
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: DETAIL.tokenInvalidOrExpired });
    });

    it.each(["", 42, null])("422, never 500, for the token %j", async (token) => {
      const res = await verify(token);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "token"], msg: VALIDATION.tokenRequired, type: expect.any(String) }],
      });
    });

    it("422 without a token", async () => {
      const res = await postJson(ctx.t.app, "/v1/user/verify-email", {});
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "token"], msg: VALIDATION.tokenRequired, type: "missing" }],
      });
    });
  });

  describe("POST /v1/user/resend-email-verification", () => {
    it("answers unknown, unverified and verified addresses byte for byte the same", async () => {
      await register(ctx.t, "ann");
      await register(ctx.t, "bob");
      const bobMail = await latestMailTo(ctx.t, "bob@example.com");
      expect((await verify(bobMail.token)).status).toBe(200);
      const before = (await ctx.t.mails()).length;

      const answers = await Promise.all(
        ["ann@example.com", "bob@example.com", "nobody@example.com"].map((email) => resend(email)),
      );
      const bodies = await Promise.all(answers.map((r) => r.text()));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(bodies).size).toBe(1);
      expect(bodies[0]).toBe(JSON.stringify({ detail: DETAIL.verificationResent }));
      const headerSets = answers.map((r) => JSON.stringify([...r.headers.entries()]));
      expect(new Set(headerSets).size).toBe(1);

      // Only the unverified account gets a new link.
      const mails = await ctx.t.mails();
      expect(mails.length).toBe(before + 1);
      expect(mails[0]?.to).toBe("ann@example.com");
    });

    it("the new link verifies the address", async () => {
      await register(ctx.t, "ann");
      expect((await resend("ANN@EXAMPLE.COM")).status).toBe(200);
      const { token } = await latestMailTo(ctx.t, "ann@example.com");
      expect((await verify(token)).status).toBe(200);
    });

    it("422 for an invalid address", async () => {
      const res = await resend("");
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "email"], msg: VALIDATION.emailRequired, type: "value_error" }],
      });
    });

    it("limits each address to 3 a minute", async () => {
      for (let i = 0; i < 3; i++) expect((await resend("ann@example.com")).status).toBe(200);
      const limited = await resend("ann@example.com");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    });
  });
});
