import { describe, expect, it } from "vitest";
import { cdnRewriteLines, routeKeyForFile, routeKeyForPath } from "./routes.ts";

describe("routeKeyForFile", () => {
  it.each([
    ["index.html", "/"],
    ["login/index.html", "/login"],
    ["verify-email/index.html", "/verify-email"],
    ["404.html", "/404"],
  ])("%s -> %s", (file, key) => {
    expect(routeKeyForFile(file)).toBe(key);
  });
});

describe("routeKeyForPath", () => {
  it.each([
    ["/", "/"],
    ["/login", "/login"],
    ["/login/", "/login"],
    ["/login/index.html", "/login"],
    ["/plans", "/plans"],
    ["/verify-email/abc123", "/verify-email"],
    ["/verify-email/", "/verify-email"],
    ["/reset-password/tok%20en", "/reset-password"],
    ["/payment/success", "/payment"],
    ["/payment/failed", "/payment"],
    ["/invitations/abc_DEF-123", "/invitations"],
    ["/404.html", "/404"],
    ["/admin/customers", "/admin/customers"],
    ["/admin/customers/", "/admin/customers"],
    ["/admin/customers/6f1c2d3e-0000-4000-8000-000000000001", "/admin/customer"],
    ["/admin/orgs/6f1c2d3e-0000-4000-8000-000000000001", "/admin/org"],
  ])("%s -> %s", (path, key) => {
    expect(routeKeyForPath(path)).toBe(key);
  });

  it.each([["/../etc/passwd"], ["/a/%2e%2e/b"], ["/%E0%A4%A"], ["/x%00y"]])("refuses %s", (path) => {
    expect(routeKeyForPath(path)).toBeUndefined();
  });
});

describe("cdnRewriteLines", () => {
  it("rewrites every parameter route to its prebuilt page", () => {
    expect(cdnRewriteLines()).toEqual([
      "/verify-email/*  /verify-email/index.html  200",
      "/reset-password/*  /reset-password/index.html  200",
      "/payment/*  /payment/index.html  200",
      "/confirm-email/*  /confirm-email/index.html  200",
      "/invitations/*  /invitations/index.html  200",
      "/admin/customers/:id  /admin/customer/index.html  200",
      "/admin/orgs/:id  /admin/org/index.html  200",
    ]);
  });
});
