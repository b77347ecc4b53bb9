import { describe, expect, it } from "vitest";
import { postLoginPath, safeCheckoutUrl, safeRedirectPath } from "./safe-redirect.ts";

describe("safeRedirectPath", () => {
  it.each([
    ["/plans", "/plans"],
    ["/profile?tab=1#top", "/profile?tab=1#top"],
    ["/", "/"],
  ])("keeps the same-site path %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });

  it.each([
    ["//evil.example"],
    ["//evil.example/plans"],
    ["///evil.example"],
    ["\t//evil.example"],
    [" //evil.example"],
    ["\\\\evil.example"],
    ["%2F%2Fevil.example"],
    ["http://127.0.0.1:4399@evil.example"],
    ["JaVaScRiPt:alert(1)"],
    ["/plans\r\n"],
    ["/\\evil.example"],
    ["/plans\\..\\\\evil.example"],
    ["https://evil.example"],
    ["http://127.0.0.1:4399/plans"],
    ["javascript:alert(1)"],
    ["data:text/html,hi"],
    ["plans"],
    ["/\t/evil.example"],
    ["/\n/evil.example"],
    [""],
  ])("refuses %j", (input) => {
    expect(safeRedirectPath(input)).toBeNull();
  });

  it("refuses what is not a string", () => {
    expect(safeRedirectPath(null)).toBeNull();
    expect(safeRedirectPath(undefined)).toBeNull();
  });
});

describe("postLoginPath", () => {
  it("goes to the saved path when it is safe, else home", () => {
    expect(postLoginPath("/plans")).toBe("/plans");
    expect(postLoginPath("https://evil.example")).toBe("/");
    expect(postLoginPath(null)).toBe("/");
  });
});

describe("safeCheckoutUrl", () => {
  const HTTPS_PAGE = "https://portal.example.com/plans";
  const HTTP_PAGE = "http://127.0.0.1:4321/plans";

  it.each([
    [
      "https://checkout.stripe.com/c/pay/cs_test_1#fid",
      HTTPS_PAGE,
      "https://checkout.stripe.com/c/pay/cs_test_1#fid",
    ],
    ["http://127.0.0.1:4321/_checkout/abc", HTTP_PAGE, "http://127.0.0.1:4321/_checkout/abc"],
    ["/_checkout/abc", HTTP_PAGE, "http://127.0.0.1:4321/_checkout/abc"],
  ])("goes to the checkout %s from %s", (value, page, expected) => {
    expect(safeCheckoutUrl(value, page)).toBe(expected);
  });

  it.each([
    ["javascript:alert(1)"],
    ["JAVASCRIPT:alert(1)"],
    ["java\tscript:alert(1)"],
    ["\njavascript:alert(1)"],
    ["data:text/html,<script>alert(1)</script>"],
    ["vbscript:msgbox(1)"],
    ["blob:https://portal.example.com/1"],
    ["file:///etc/passwd"],
    ["http://checkout.example.com/plain-http"],
    ["http://[bad"],
    [""],
  ])("refuses %j on an https page", (value) => {
    expect(safeCheckoutUrl(value, HTTPS_PAGE)).toBeNull();
  });

  it("refuses what is not a string", () => {
    expect(safeCheckoutUrl(undefined, HTTP_PAGE)).toBeNull();
    expect(safeCheckoutUrl({ href: "https://x.example" }, HTTP_PAGE)).toBeNull();
  });
});
