import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { clientIp, lastForwardedFor } from "./client-ip.ts";
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
    ["/verify-email/", "/verify-email/"],
    ["/v1/users/me", "/v1/users/me"],
  ])("%s is logged as %s", (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});
