import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { clientIp, lastForwardedFor } from "./client-ip.ts";
import { errorHandler } from "./errors.ts";
import { redactPath } from "./request-log.ts";

describe("client address", () => {
  it("takes the last X-Forwarded-For entry: the one our proxy added", () => {
    expect(lastForwardedFor("203.0.113.9, 10.0.0.1, 198.51.100.7")).toBe("198.51.100.7");
    expect(lastForwardedFor(" 198.51.100.7 ")).toBe("198.51.100.7");
    expect(lastForwardedFor("")).toBeUndefined();
    expect(lastForwardedFor(undefined)).toBeUndefined();
  });

  it("ignores X-Forwarded-For unless a proxy is trusted", async () => {
    const app = new Hono();
    app.get("/trusting", (c) => c.text(clientIp(c, true)));
    app.get("/direct", (c) => c.text(clientIp(c, false)));
    const headers = { "X-Forwarded-For": "1.2.3.4, 5.6.7.8" };
    expect(await (await app.request("/trusting", { headers })).text()).toBe("5.6.7.8");
    expect(await (await app.request("/direct", { headers })).text()).toBe("unknown");
  });
});

describe("request log paths", () => {
  it.each([
    ["/v1/user/password-reset-check/abcDEF123", "/v1/user/password-reset-check/[redacted]"],
    ["/verify-email/abcDEF123", "/verify-email/[redacted]"],
    ["/reset-password/abcDEF123", "/reset-password/[redacted]"],
    ["/confirm-email/abcDEF123", "/confirm-email/[redacted]"],
    ["/verify-email/", "/verify-email/"],
    ["/v1/users/me", "/v1/users/me"],
  ])("%s is logged as %s", (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});

describe("the 500 handler's log line", () => {
  it("writes a path that carries a mailed token without the token", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "error" }, { write: (line: string) => lines.push(line) });
    const app = new Hono();
    app.onError(errorHandler(logger));
    app.get("/confirm-email/:token", () => {
      throw new Error("boom");
    });
    const res = await app.request("/confirm-email/secretTOKEN123");
    expect(res.status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}").path).toBe("/confirm-email/[redacted]");
    expect(lines[0]).not.toContain("secretTOKEN123");
  });
});
