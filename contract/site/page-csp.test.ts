import { describe, expect, it } from "vitest";
import { cspHeaderForHtml, FALLBACK_POLICY } from "./page-csp.ts";

describe("cspHeaderForHtml", () => {
  it("lifts the page's meta policy and adds frame-ancestors", () => {
    const html = `<head><meta http-equiv="content-security-policy" content="default-src 'self';script-src 'self' 'sha256-abc=';  style-src 'self';"></head>`;
    expect(cspHeaderForHtml(html)).toBe(
      "default-src 'self'; script-src 'self' 'sha256-abc='; style-src 'self'; frame-ancestors 'none'",
    );
  });

  it("falls back to a strict policy when the page has none", () => {
    const header = cspHeaderForHtml("<html><body>x</body></html>");
    expect(header.startsWith(FALLBACK_POLICY.split(";")[0] ?? "")).toBe(true);
    expect(header).toContain("frame-ancestors 'none'");
    expect(header).not.toContain("unsafe-inline");
  });

  it("keeps an explicit frame-ancestors rather than adding a second one", () => {
    const html = `<meta http-equiv="content-security-policy" content="default-src 'self'; frame-ancestors 'self'">`;
    expect(cspHeaderForHtml(html).match(/frame-ancestors/g)).toHaveLength(1);
  });
});
