// The link checker on small pages, then on the built portal (dist/, which `npm test` builds first
// through scripts/build-if-stale.ts): every internal link and #fragment of every page resolves.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codeGuessingMail } from "../server/mail/code-guessing-mail.ts";
import { passwordChangedMail, passwordResetMail, verificationMail } from "../server/mail/templates.ts";
import { type BuiltPage, brokenLinks, brokenReason, readPage, readSite } from "./link-check.ts";

const page = (route: string, html: string): [string, BuiltPage] => [route, readPage(route, html)];

describe("brokenReason", () => {
  const pages = new Map([
    page("/", '<main id="main"><a href="/plans#credit-worth">x</a></main>'),
    page("/plans", '<h2 id="credit-worth">Worth</h2><a name="old-anchor"></a>'),
    page("/reset-password", "<form></form>"),
    page("/profile/api-keys", '<div id="revoke-all"></div>'),
  ]);
  const files = new Set(["/favicon.svg", "/_astro/site.css"]);
  const why = (link: string, from = "/") => brokenReason(link, from, pages, (p) => files.has(p));

  it.each([
    ["/plans"],
    ["/plans/"],
    ["/plans#credit-worth"],
    ["/plans#old-anchor"],
    ["#main"],
    ["/#main"],
    ["#"],
    ["/reset-password/abc123"],
    ["/profile/api-keys#revoke-all"],
    ["/favicon.svg"],
    ["/_astro/site.css"],
    ["/v1/docs"],
    ["/v1/openapi.json"],
    ["/_checkout/cs_1"],
    ["https://example.com/nowhere#x"],
    ["mailto:support@example.com"],
    ["//cdn.example.com/x.js"],
  ])("%s resolves", (link) => {
    expect(why(link)).toBeUndefined();
  });

  it.each([
    ["/plan", "no page or file at /plan"],
    ["/plans#credit", '/plans has no element with id "credit"'],
    ["#nowhere", '/ has no element with id "nowhere"'],
    ["/profile/api-keys#revoke", '/profile/api-keys has no element with id "revoke"'],
    ["/favicon.png", "no page or file at /favicon.png"],
    ["/favicon.svg#x", "no page or file at /favicon.svg"],
    ["/v1x", "no page or file at /v1x"],
  ])("%s is broken: %s", (link, reason) => {
    expect(why(link)).toBe(reason);
  });

  it("reads a relative link from the page it is on", () => {
    expect(why("credit-worth", "/plans")).toBe("no page or file at /credit-worth");
    expect(why("#credit-worth", "/plans")).toBeUndefined();
    expect(why("../plans", "/profile/api-keys")).toBeUndefined();
  });
});

const DIST = "dist";

describe.skipIf(!existsSync(`${DIST}/index.html`))("the built portal (dist/)", () => {
  it("has no broken internal link or fragment on any page", () => {
    expect(brokenLinks(DIST)).toEqual([]);
  });

  it("reads every page, the link pages and the reset page's keys note among them", () => {
    const site = readSite(DIST);
    for (const route of ["/", "/login", "/reset-password", "/profile/api-keys", "/404"]) {
      expect(site.has(route), route).toBe(true);
    }
    expect(site.get("/reset-password")?.links).toContain("/profile/api-keys#revoke-all");
  });

  it("has the targets of the links mails and islands build", () => {
    const site = readSite(DIST);
    const portalUrl = "https://portal.test";
    const mails = [
      passwordChangedMail({ to: "a@x", username: "ann", portalUrl, at: "now", ip: null, keys: [] }),
      passwordResetMail({ to: "a@x", username: "ann", portalUrl, token: "t0k" }),
      verificationMail({ to: "a@x", username: "ann", portalUrl, token: "t0k" }),
      codeGuessingMail({ to: "a@x", username: "ann", portalUrl, at: "now", ip: null }),
    ];
    const links = mails.flatMap((m) =>
      [...m.text.matchAll(/https:\/\/portal\.test(\/\S*)/g)].map((match) => match[1] ?? ""),
    );
    expect(links).toContain("/profile/api-keys#revoke-all");
    // The reset page's island links to the password reset request when a token has expired.
    links.push("/forgot-password", "/resend-email-verification");
    const broken = links.filter((link) => brokenReason(link, "/", site, () => false) !== undefined);
    expect(broken).toEqual([]);
  });
});
