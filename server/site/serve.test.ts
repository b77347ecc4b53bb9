import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { siteRoutes } from "./serve.ts";
import { sitePage } from "./site.ts";

const distDir = mkdtempSync(join(tmpdir(), "site-"));
afterAll(() => rmSync(distDir, { recursive: true, force: true }));

const site = {
  distDir,
  pages: new Map([
    ["/", sitePage("<!doctype html><title>Home</title>")],
    ["/login", sitePage("<!doctype html><title>Log in</title>")],
    ["/404", sitePage("<!doctype html><title>Not found</title>")],
  ]),
};
const app = siteRoutes(site, "http://localhost:4321");

describe("siteRoutes on a developer's machine (PORTAL_URL http://localhost:4321)", () => {
  it("sends a page asked for on 127.0.0.1 to localhost, keeping the path and query", async () => {
    const res = await app.request("http://127.0.0.1:4321/login?next=%2Fprofile", { redirect: "manual" });
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("http://localhost:4321/login?next=%2Fprofile");
  });

  it("serves the page on PORTAL_URL's own origin", async () => {
    const res = await app.request("http://localhost:4321/login");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<title>Log in</title>");
  });

  it("answers a missing page with the 404 page wherever it was asked", async () => {
    const res = await app.request("http://127.0.0.1:4321/no-such-page");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Not found");
  });
});
