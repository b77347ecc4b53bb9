import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { addressKey, clientIp, lastForwardedFor } from "./client-ip.ts";
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

describe("the key per-address limits count under", () => {
  it.each([
    ["198.51.100.7", "198.51.100.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:DB8:0001:0002::9", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::FFFF:c000:0201", "192.0.2.1"],
    ["::ffff:0:0", "0.0.0.0"],
    ["::fffe:192.0.2.1", "0:0:0:0::/64"],
    ["1::ffff:192.0.2.1", "1:0:0:0::/64"],
    ["64:ff9b::192.0.2.1", "64:ff9b:0:0::/64"],
    ["unknown", "unknown"],
    ["", ""],
  ])("%s counts as %s", (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it("gives two addresses of one /64 one key, and of neighbouring /64s two", () => {
    expect(addressKey("2001:db8:a:b::1")).toBe(addressKey("2001:db8:a:b:ffff::2"));
    expect(addressKey("2001:db8:a:b::1")).not.toBe(addressKey("2001:db8:a:c::1"));
  });
});

describe("request log paths", () => {
  it.each([
    ["/v1/user/password-reset-check/abcDEF123", "/v1/user/password-reset-check/[redacted]"],
    ["/verify-email/abcDEF123", "/verify-email/[redacted]"],
    ["/reset-password/abcDEF123", "/reset-password/[redacted]"],
    ["/confirm-email/abcDEF123", "/confirm-email/[redacted]"],
    ["/v1/invitations/abcDEF123/accept", "/v1/invitations/[redacted]"],
    ["/invitations/abcDEF123", "/invitations/[redacted]"],
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
