import { describe, expect, it } from "vitest";
import { postLoginPath, safeRedirectPath } from "./safe-redirect.ts";

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
