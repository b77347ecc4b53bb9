import { decodeProtectedHeader, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import { createAccessTokens } from "./access-tokens.ts";

const settings = { secret: "s".repeat(40), issuer: "iss-test", audience: "aud-test", ttlSeconds: 3600 };
const subject = {
  id: "5f0c5c1e-0000-4000-8000-000000000001",
  username: "ann",
  role: "user" as const,
  tokenVersion: 3,
};
const key = new TextEncoder().encode(settings.secret);

describe("access tokens", () => {
  it("carries the contract's claims, with iat and exp from the clock", async () => {
    const clock = new ManualClock("2030-01-01T00:00:00Z");
    const tokens = createAccessTokens(settings, clock);
    const { token, expiresIn } = await tokens.issue(subject);
    expect(expiresIn).toBe(3600);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT" });
    const iat = Date.parse("2030-01-01T00:00:00Z") / 1000;
    expect(await tokens.verify(token)).toEqual({
      sub: subject.id,
      username: "ann",
      role: "user",
      ver: 3,
      iat,
      exp: iat + 3600,
    });
  });

  it("expires after its lifetime", async () => {
    const clock = new ManualClock();
    const tokens = createAccessTokens(settings, clock);
    const { token } = await tokens.issue(subject);
    clock.advance(3599_000);
    expect(await tokens.verify(token)).toBeDefined();
    clock.advance(2_000);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it.each([
    ["another secret", { ...settings, secret: "t".repeat(40) }],
    ["another issuer", { ...settings, issuer: "someone-else" }],
    ["another audience", { ...settings, audience: "someone-else" }],
  ])("refuses a token made with %s", async (_label, other) => {
    const clock = new ManualClock();
    const { token } = await createAccessTokens(other, clock).issue(subject);
    expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
  });

  it("refuses alg=none", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const token = new UnsecuredJWT({ username: "ann", role: "admin", ver: 3 })
      .setSubject(subject.id)
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .encode();
    expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
  });

  it("refuses HS512 even with the right secret (algorithm allow-list)", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const token = await new SignJWT({ username: "ann", role: "user", ver: 3 })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(subject.id)
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode("s".repeat(64)));
    expect(
      await createAccessTokens({ ...settings, secret: "s".repeat(64) }, clock).verify(token),
    ).toBeUndefined();
  });

  it("refuses a signed token without the ver claim", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const token = await new SignJWT({ username: "ann", role: "user" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(subject.id)
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
  });

  it.each(["", "abc", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30."])("refuses garbage %j", async (garbage) => {
    expect(await createAccessTokens(settings, new ManualClock()).verify(garbage)).toBeUndefined();
  });
});
