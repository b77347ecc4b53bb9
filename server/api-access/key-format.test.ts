import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  claimsServiceKey,
  generateKey,
  hashKey,
  keyMatches,
  parseKey,
  searchedApiKeyId,
} from "./key-format.ts";

describe("key format", () => {
  it("is the kind's prefix, the key id, 43 base62 characters of secret and a 6-character checksum", () => {
    const api = generateKey("api");
    expect(api.key).toMatch(/^gpk_[0-9A-Za-z]{12}[0-9A-Za-z]{43}[0-9A-Za-z]{6}$/);
    expect(api.key.startsWith(api.prefix)).toBe(true);
    expect(api.prefix).toBe(`gpk_${api.id}`);
    expect(generateKey("service").key).toMatch(/^gsk_[0-9A-Za-z]{61}$/);
  });

  it("carries at least 256 bits of randomness in its secret part", () => {
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    const secrets = new Set(Array.from({ length: 200 }, () => generateKey("api").key.slice(16, 59)));
    expect(secrets.size).toBe(200);
  });

  it("stores only the SHA-256 of the key, which matches the key and nothing else", () => {
    const { key, hash } = generateKey("api");
    expect(hash).toBe(hashKey(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(key.slice(16, 59));
    expect(keyMatches(key, hash)).toBe(true);
    expect(keyMatches(generateKey("api").key, hash)).toBe(false);
    expect(keyMatches(key, "abcd")).toBe(false);
  });

  it("reads back the kind and id of a key, and its checksum is the CRC32 of the rest in base62", () => {
    const { key, id } = generateKey("service");
    expect(parseKey(key)).toEqual({ kind: "service", id });
    const body = key.slice(0, -6);
    let value = 0;
    for (const digit of key.slice(-6)) {
      value = value * 62 + "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".indexOf(digit);
    }
    expect(value).toBe(crc32(body));
  });

  it("refuses a mistyped key, a wrong checksum, an unknown prefix and other shapes", () => {
    const { key } = generateKey("api");
    const swapped = key.at(30) === "a" ? "b" : "a";
    const typo = `${key.slice(0, 30)}${swapped}${key.slice(31)}`;
    expect(parseKey(typo)).toBeUndefined();
    expect(parseKey(`${key.slice(0, -1)}${key.at(-1) === "0" ? "1" : "0"}`)).toBeUndefined();
    expect(parseKey(`xyz_${key.slice(4)}`)).toBeUndefined();
    expect(parseKey(`${key}0`)).toBeUndefined();
    expect(parseKey(key.slice(0, -1))).toBeUndefined();
    expect(parseKey("")).toBeUndefined();
    expect(parseKey(`${key}\n`)).toBeUndefined();
  });

  it("tells a text that claims to be a service key by its prefix alone", () => {
    expect(claimsServiceKey(generateKey("service").key)).toBe(true);
    expect(claimsServiceKey("gsk_malformed")).toBe(true);
    expect(claimsServiceKey(generateKey("api").key)).toBe(false);
    expect(claimsServiceKey("eyJhbGciOiJFUzI1NiJ9.gsk_.x")).toBe(false);
    expect(claimsServiceKey("gsk")).toBe(false);
    expect(claimsServiceKey("")).toBe(false);
  });
});

describe("searchedApiKeyId", () => {
  it("is a whole API key's id, not its first characters", () => {
    const { key, id } = generateKey("api");
    expect(searchedApiKeyId(key)).toBe(id);
  });

  it("is the start of one as copied from an e-mail, its trailing ellipsis, dots and spaces cut", () => {
    expect(searchedApiKeyId("gpk_3xT9aQ")).toBe("3xT9aQ");
    expect(searchedApiKeyId("gpk_3xT9aQ…")).toBe("3xT9aQ");
    expect(searchedApiKeyId("gpk_3xT9aQ... ")).toBe("3xT9aQ");
    expect(searchedApiKeyId("gpk_3x.T9 …")).toBe("3x.T9");
    expect(searchedApiKeyId("gpk_")).toBe("");
  });

  it("is the id's length of a key whose checksum is wrong (a typo in its secret): its id", () => {
    const { key, id } = generateKey("api");
    const broken = `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}`;
    expect(parseKey(broken)).toBeUndefined();
    expect(searchedApiKeyId(broken)).toBe(id);
    expect(searchedApiKeyId(`gpk_${"a".repeat(11)}…`)).toBe("a".repeat(11));
    expect(searchedApiKeyId(`gpk_${"b".repeat(12)}…`)).toBe("b".repeat(12));
    expect(searchedApiKeyId(`gpk_${"c".repeat(13)}`)).toBe("c".repeat(12));
  });

  it("is undefined for anything that is no API key: a service key, an e-mail, a key's id alone", () => {
    const { key, id } = generateKey("service");
    expect(searchedApiKeyId(key)).toBeUndefined();
    expect(searchedApiKeyId("ada@example.com")).toBeUndefined();
    expect(searchedApiKeyId(id)).toBeUndefined();
    expect(searchedApiKeyId("GPK_3xT9aQ")).toBeUndefined();
    expect(searchedApiKeyId(" gpk_3xT9aQ")).toBeUndefined();
  });
});
