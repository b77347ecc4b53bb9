import { describe, expect, it } from "vitest";
import { EXTERNAL_LINK_ATTRIBUTES, isExternalHref, linkAttributes } from "./links.ts";

describe("linkAttributes", () => {
  it.each([
    ["https://help.example.com"],
    ["http://docs.example.com/api"],
    ["HTTPS://EXAMPLE.COM/x"],
    ["//cdn.example.com/file"],
    ["  https://example.com  "],
  ])("an external link to %s opens in a new tab without opener or referrer", (href) => {
    expect(isExternalHref(href)).toBe(true);
    expect(linkAttributes(href)).toEqual({ target: "_blank", rel: "noopener noreferrer" });
  });

  it.each([["/plans"], ["/"], ["#main"], ["plans"], ["mailto:support@example.com"], ["/login?next=/plans"]])(
    "a link to %s stays in the same tab",
    (href) => {
      expect(isExternalHref(href)).toBe(false);
      expect(linkAttributes(href)).toEqual({});
    },
  );

  it("hands each caller its own copy, so one link cannot weaken the next", () => {
    const attrs = linkAttributes("https://example.com") as Record<string, string>;
    attrs.rel = "opener";
    expect(EXTERNAL_LINK_ATTRIBUTES.rel).toBe("noopener noreferrer");
    expect(linkAttributes("https://example.com").rel).toBe("noopener noreferrer");
  });
});
