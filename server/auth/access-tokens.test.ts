import { createPublicKey } from "node:crypto";
import { decodeProtectedHeader, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import { newSigningKeyPem, newSigningKeys } from "../testing/signing-keys.ts";
import { createAccessTokens } from "./access-tokens.ts";
import { loadSigningKeys } from "./signing-keys.ts";

const keys = await newSigningKeys();
const settings = { keys, issuer: "iss-test", audience: "aud-test", ttlSeconds: 3600 };
const anotherKey = await newSigningKeys();
const subject = {
  id: "5f0c5c1e-0000-4000-8000-000000000001",
  username: "ann",
  role: "user" as const,
  tokenVersion: 3,
};

/** A token with the right claims, signed however the test says. */
function claimsFor(now: number, extra: Record<string, unknown> = { ver: 3 }) {
  return new SignJWT({ username: "ann", role: "admin", ...extra })
    .setSubject(subject.id)
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 60);
}

describe("access tokens", () => {
  it("carries the contract's claims, with iat and exp from the clock", async () => {
    const clock = new ManualClock("2030-01-01T00:00:00Z");
    const tokens = createAccessTokens(settings, clock);
    const { token, expiresIn } = await tokens.issue(subject);
    expect(expiresIn).toBe(3600);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", kid: keys.current.kid, typ: "JWT" });
    const iat = Date.parse("2030-01-01T00:00:00Z") / 1000;
    expect(await tokens.verify(token)).toEqual({
      sub: subject.id,
      username: "ann",
      role: "user",
      ver: 3,
      iat,
      exp: iat + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      auth_time: iat,
      amr: ["pwd"],
    });
  });

  it("carries the authentication it is issued with, and refuses a revoked token id", async () => {
    const clock = new ManualClock("2030-01-01T00:10:00Z");
    const revoked = new Set<string>();
    const tokens = createAccessTokens({ ...settings, isRevoked: (jti) => revoked.has(jti) }, clock);
    const authTime = new Date("2030-01-01T00:00:00Z");
    const { token } = await tokens.issue(subject, { authTime, amr: ["pwd", "otp", "mfa"] });
    const claims = await tokens.verify(token);
    expect(claims).toMatchObject({ auth_time: authTime.getTime() / 1000, amr: ["pwd", "otp", "mfa"] });
    revoked.add(claims?.jti as string);
    // Also when the token was verified (and remembered) before.
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it("reads a token without auth_time or amr as a password's, issued at iat", async () => {
    const clock = new ManualClock("2030-01-01T00:00:00Z");
    const iat = Date.parse("2030-01-01T00:00:00Z") / 1000;
    const token = await new SignJWT({ username: "ann", role: "user", ver: 3, amr: "pwd" })
      .setProtectedHeader({ alg: keys.current.alg, kid: keys.current.kid, typ: "JWT" })
      .setSubject(subject.id)
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .setJti("old-token")
      .sign(keys.current.privateKey);
    expect(await createAccessTokens(settings, clock).verify(token)).toMatchObject({
      auth_time: iat,
      amr: ["pwd"],
    });
  });

  it("refuses a token signed with its key but typed as another kind of JWT, or not typed (RFC 8725 3.11)", async () => {
    const clock = new ManualClock("2030-01-01T00:00:00Z");
    const iat = Date.parse("2030-01-01T00:00:00Z") / 1000;
    const signed = (header: { typ?: string }) =>
      new SignJWT({ username: "ann", role: "user", ver: 3 })
        .setProtectedHeader({ alg: keys.current.alg, kid: keys.current.kid, ...header })
        .setSubject(subject.id)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 60)
        .setJti("typed")
        .sign(keys.current.privateKey);
    const tokens = createAccessTokens(settings, clock);
    expect(await tokens.verify(await signed({ typ: "JWT" }))).toBeDefined();
    expect(await tokens.verify(await signed({ typ: "logout+jwt" }))).toBeUndefined();
    expect(await tokens.verify(await signed({}))).toBeUndefined();
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
    ["another key", { ...settings, keys: anotherKey }],
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

  it("refuses an HS256 token whose secret is our public key (algorithm confusion)", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const publicPem = createPublicKey(keys.current.privateKey).export({ format: "pem", type: "spki" });
    for (const secret of [String(publicPem), JSON.stringify(keys.current.jwk), keys.current.jwk.x ?? ""]) {
      const token = await claimsFor(now)
        .setProtectedHeader({ alg: "HS256", kid: keys.current.kid })
        .sign(new TextEncoder().encode(secret));
      expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
    }
  });

  it("refuses a token whose kid is not one of ours, even when the key behind it is valid", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const stranger = await newSigningKeys();
    const unknownKid = await claimsFor(now)
      .setProtectedHeader({ alg: "EdDSA", kid: "not-our-kid" })
      .sign(keys.current.privateKey);
    const strangersKid = await claimsFor(now)
      .setProtectedHeader({ alg: "EdDSA", kid: stranger.current.kid })
      .sign(stranger.current.privateKey);
    const ourKidTheirKey = await claimsFor(now)
      .setProtectedHeader({ alg: "EdDSA", kid: keys.current.kid })
      .sign(stranger.current.privateKey);
    for (const token of [unknownKid, strangersKid, ourKidTheirKey]) {
      expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
    }
  });

  it("signs with ES256 when the key is a P-256 key", async () => {
    const clock = new ManualClock();
    const tokens = createAccessTokens({ ...settings, keys: await newSigningKeys("ES256") }, clock);
    const { token } = await tokens.issue(subject);
    expect(decodeProtectedHeader(token).alg).toBe("ES256");
    expect(await tokens.verify(token)).toMatchObject({ sub: subject.id });
  });

  it("keeps verifying the previous key's tokens after a rotation, until they expire", async () => {
    const clock = new ManualClock();
    const oldPem = newSigningKeyPem();
    const before = createAccessTokens({ ...settings, keys: await loadSigningKeys(oldPem) }, clock);
    const { token: oldToken } = await before.issue(subject);
    const rotated = await loadSigningKeys(newSigningKeyPem(), [oldPem]);
    const after = createAccessTokens({ ...settings, keys: rotated }, clock);
    const { token: newToken } = await after.issue(subject);
    expect(decodeProtectedHeader(newToken).kid).toBe(rotated.current.kid);
    expect(decodeProtectedHeader(oldToken).kid).not.toBe(rotated.current.kid);
    expect(rotated.jwks.keys.map((k) => k.kid)).toEqual([
      rotated.current.kid,
      decodeProtectedHeader(oldToken).kid,
    ]);
    expect(await after.verify(oldToken)).toMatchObject({ sub: subject.id });
    expect(await after.verify(newToken)).toMatchObject({ sub: subject.id });
    // Without the old key in the set, its tokens stop verifying.
    expect(
      await createAccessTokens(
        { ...settings, keys: await loadSigningKeys(newSigningKeyPem()) },
        clock,
      ).verify(oldToken),
    ).toBeUndefined();
    clock.advance(3600_000);
    expect(await after.verify(oldToken)).toBeUndefined();
  });

  it("refuses a signed token without the ver claim", async () => {
    const clock = new ManualClock();
    const now = Math.floor(clock.now().getTime() / 1000);
    const token = await claimsFor(now, {})
      .setProtectedHeader({ alg: "EdDSA", kid: keys.current.kid })
      .sign(keys.current.privateKey);
    expect(await createAccessTokens(settings, clock).verify(token)).toBeUndefined();
  });

  it.each(["", "abc", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30."])("refuses garbage %j", async (garbage) => {
    expect(await createAccessTokens(settings, new ManualClock()).verify(garbage)).toBeUndefined();
  });
});
