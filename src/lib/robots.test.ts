import { describe, expect, it } from "vitest";
import { robotsTxt } from "./robots.ts";

describe("robotsTxt", () => {
  it("keeps crawlers out of token, session and payment pages and points at the sitemap", () => {
    expect(robotsTxt(new URL("https://portal.example.com"))).toBe(
      [
        "User-agent: *",
        "Disallow: /profile",
        "Disallow: /payment",
        "Disallow: /verify-email",
        "Disallow: /reset-password",
        "Disallow: /admin",
        "Disallow: /org",
        "Disallow: /invitations",
        "",
        "Sitemap: https://portal.example.com/sitemap-index.xml",
        "",
      ].join("\n"),
    );
  });

  // robots.txt is only ever read at the origin's root, so the sitemap it names sits there too.
  it("names the sitemap at the origin's root whatever path the site URL carries", () => {
    expect(robotsTxt("http://localhost:4321/")).toContain("Sitemap: http://localhost:4321/sitemap-index.xml");
    expect(robotsTxt("https://example.com/portal/")).toContain(
      "Sitemap: https://example.com/sitemap-index.xml",
    );
  });
});
