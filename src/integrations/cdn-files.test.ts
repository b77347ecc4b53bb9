import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeCdnFiles } from "./cdn-files.ts";

const page = (hash: string) =>
  `<!doctype html><html><head><meta http-equiv="content-security-policy" content="default-src 'self'; script-src 'self' 'sha256-${hash}='; style-src 'self'"></head><body></body></html>`;

describe("writeCdnFiles", () => {
  let dist: string;

  beforeEach(async () => {
    dist = await mkdtemp(join(tmpdir(), "cdn-files-"));
    await mkdir(join(dist, "login"));
    await mkdir(join(dist, "payment"));
    await writeFile(join(dist, "index.html"), page("home"));
    await writeFile(join(dist, "login/index.html"), page("login"));
    await writeFile(join(dist, "payment/index.html"), page("payment"));
    await writeFile(join(dist, "404.html"), page("notfound"));
  });

  afterEach(async () => {
    await rm(dist, { recursive: true, force: true });
  });

  it("writes the Node server's parameter-route rewrites as _redirects", async () => {
    await writeCdnFiles(dist);
    expect(await readFile(join(dist, "_redirects"), "utf8")).toBe(
      [
        "/verify-email/*  /verify-email/index.html  200",
        "/reset-password/*  /reset-password/index.html  200",
        "/payment/*  /payment/index.html  200",
        "/confirm-email/*  /confirm-email/index.html  200",
        "/invitations/*  /invitations/index.html  200",
        "/admin/customers/:id  /admin/customer/index.html  200",
        "/admin/orgs/:id  /admin/org/index.html  200",
        "",
      ].join("\n"),
    );
  });

  it("writes security headers for every URL and each page's own CSP, with frame-ancestors, on its URLs", async () => {
    await writeCdnFiles(dist);
    const headers = await readFile(join(dist, "_headers"), "utf8");
    expect(headers).toBe(
      [
        "/*",
        "  X-Content-Type-Options: nosniff",
        "  Referrer-Policy: strict-origin-when-cross-origin",
        "  X-Frame-Options: DENY",
        "  Cross-Origin-Opener-Policy: same-origin",
        "  Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=()",
        "",
        "/_astro/*",
        "  Cache-Control: public, max-age=31536000, immutable",
        "",
        "/",
        "  Content-Security-Policy: default-src 'self'; script-src 'self' 'sha256-home='; style-src 'self'; frame-ancestors 'none'",
        "",
        "/login",
        "  Content-Security-Policy: default-src 'self'; script-src 'self' 'sha256-login='; style-src 'self'; frame-ancestors 'none'",
        "",
        "/login/",
        "  Content-Security-Policy: default-src 'self'; script-src 'self' 'sha256-login='; style-src 'self'; frame-ancestors 'none'",
        "",
        "/payment",
        "  Content-Security-Policy: default-src 'self'; script-src 'self' 'sha256-payment='; style-src 'self'; frame-ancestors 'none'",
        "",
        "/payment/*",
        "  Content-Security-Policy: default-src 'self'; script-src 'self' 'sha256-payment='; style-src 'self'; frame-ancestors 'none'",
        "",
      ].join("\n"),
    );
    expect(headers).not.toContain("notfound");
  });

  it("replaces the files of an earlier build instead of appending to them", async () => {
    await writeCdnFiles(dist);
    await writeCdnFiles(dist);
    const redirects = await readFile(join(dist, "_redirects"), "utf8");
    expect(redirects.match(/\/payment\/\*/g)).toHaveLength(1);
  });
});
