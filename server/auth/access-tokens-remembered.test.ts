import { describe, expect, it } from "vitest";
import { ManualClock } from "../clock.ts";
import { newSigningKeys } from "../testing/signing-keys.ts";
import { createAccessTokens } from "./access-tokens.ts";

const settings = {
  keys: await newSigningKeys(),
  issuer: "genai-portal",
  audience: "genai-portal-api",
  ttlSeconds: 3600,
};
const subject = {
  id: "0b5c7a3e-2f7d-4c1e-9a55-3f1f0d6b8c21",
  username: "ann",
  role: "user" as const,
  tokenVersion: 0,
};

describe("verify() remembers the tokens it verified", () => {
  it("answers a token it verified before with the same claims, until the token expires", async () => {
    const clock = new ManualClock();
    const tokens = createAccessTokens(settings, clock);
    const { token } = await tokens.issue(subject);
    const first = await tokens.verify(token);
    expect(first).toMatchObject({ sub: subject.id, ver: 0 });
    expect(await tokens.verify(token)).toBe(first);
    clock.advance(3599_000);
    expect(await tokens.verify(token)).toBe(first);
    clock.advance(1_000); // exp is now: expired, as jose says
    expect(await tokens.verify(token)).toBeUndefined();
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it("does not let a changed token ride on a remembered one", async () => {
    const tokens = createAccessTokens(settings, new ManualClock());
    const { token } = await tokens.issue(subject);
    expect(await tokens.verify(token)).toBeDefined();
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: "admin" })).toString("base64url")}.${signature}`;
    expect(await tokens.verify(tampered)).toBeUndefined();
    expect(await tokens.verify(`${token}x`)).toBeUndefined();
  });

  it("is per key: another process's key does not share what this one verified", async () => {
    const clock = new ManualClock();
    const mine = createAccessTokens(settings, clock);
    const theirs = createAccessTokens({ ...settings, keys: await newSigningKeys() }, clock);
    const { token } = await mine.issue(subject);
    expect(await mine.verify(token)).toBeDefined();
    expect(await theirs.verify(token)).toBeUndefined();
  });

  it("forgets the least recently verified token beyond its capacity, and verifies it again", async () => {
    const clock = new ManualClock();
    const tokens = createAccessTokens(settings, clock, 2);
    const issued = await Promise.all([0, 1, 2].map((v) => tokens.issue({ ...subject, tokenVersion: v })));
    const claims = [];
    for (const { token } of issued) claims.push(await tokens.verify(token));
    // The first was forgotten: verified afresh, a new object with the same claims.
    const again = await tokens.verify(issued[0]?.token ?? "");
    expect(again).toEqual(claims[0]);
    expect(again).not.toBe(claims[0]);
    expect(await tokens.verify(issued[2]?.token ?? "")).toBe(claims[2]);
  });
});
