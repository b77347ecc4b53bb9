import { describe, expect, it } from "vitest";
import { portalOriginRedirect } from "./portal-origin.ts";

const PORTAL = "http://localhost:4321";

describe("portalOriginRedirect", () => {
  it("sends a page asked for on 127.0.0.1 to PORTAL_URL's origin, path and query kept", () => {
    expect(portalOriginRedirect("http://127.0.0.1:4321/profile?tab=keys", PORTAL)).toBe(
      "http://localhost:4321/profile?tab=keys",
    );
    expect(portalOriginRedirect("http://127.0.0.1:4321/", PORTAL)).toBe("http://localhost:4321/");
  });

  it("works the other way round and for IPv6 loopback", () => {
    expect(portalOriginRedirect("http://localhost:4321/login", "http://127.0.0.1:4321")).toBe(
      "http://127.0.0.1:4321/login",
    );
    expect(portalOriginRedirect("http://[::1]:4321/login", PORTAL)).toBe("http://localhost:4321/login");
    expect(portalOriginRedirect("http://127.0.0.2:4321/login", PORTAL)).toBe("http://localhost:4321/login");
  });

  it("answers a request already on PORTAL_URL's origin", () => {
    expect(portalOriginRedirect("http://localhost:4321/login", PORTAL)).toBeUndefined();
    expect(portalOriginRedirect("http://localhost:4321/login", "http://localhost:4321/")).toBeUndefined();
  });

  it("leaves other ports, schemes and real domains alone", () => {
    expect(portalOriginRedirect("http://127.0.0.1:5000/", PORTAL)).toBeUndefined();
    expect(portalOriginRedirect("https://127.0.0.1:4321/", PORTAL)).toBeUndefined();
    expect(portalOriginRedirect("http://portal.example.com/", PORTAL)).toBeUndefined();
    expect(portalOriginRedirect("http://127.0.0.1:4321/", "https://portal.example.com")).toBeUndefined();
    expect(portalOriginRedirect("http://www.example.com/", "https://example.com")).toBeUndefined();
    expect(portalOriginRedirect("http://127.0.0.1.example.com:4321/", PORTAL)).toBeUndefined();
    expect(portalOriginRedirect("http://localhost.example.com:4321/", PORTAL)).toBeUndefined();
  });
});
