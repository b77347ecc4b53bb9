import { describe, expect, it } from "vitest";
import { generateKey } from "../api-access/key-format.ts";
import { generateSecretToken } from "../auth/secret-tokens.ts";
import { declareIntegerFormats, PATH_IDS } from "./openapi.ts";

describe("declareIntegerFormats", () => {
  it("calls an integer int32 when both bounds fit in 32 bits, int64 otherwise", () => {
    const schema = {
      type: "object",
      properties: {
        days: { type: "integer", minimum: 1, maximum: 365 },
        limit: { anyOf: [{ type: "integer", exclusiveMinimum: 0, maximum: 1_000_000 }, { type: "null" }] },
        amount: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        low: { type: "integer", minimum: -(2 ** 31) - 1, maximum: 0 },
        unbounded: { type: "integer" },
        edge: { type: "integer", minimum: -(2 ** 31), maximum: 2 ** 31 - 1 },
        kept: { type: "integer", format: "int64", minimum: 0, maximum: 10 },
        text: { type: "string" },
      },
    };
    declareIntegerFormats(schema);
    const p = schema.properties as Record<string, Record<string, unknown>>;
    expect(p.days?.format).toBe("int32");
    expect(p.limit?.anyOf).toEqual([expect.objectContaining({ format: "int32" }), { type: "null" }]);
    expect(p.amount?.format).toBe("int64");
    expect(p.low?.format).toBe("int64");
    expect(p.unbounded?.format).toBe("int64");
    expect(p.edge?.format).toBe("int32");
    expect(p.kept?.format).toBe("int64");
    expect(p.text).toEqual({ type: "string" });
  });
});

describe("PATH_IDS", () => {
  const accepts = (schema: { pattern?: string; maxLength: number }, value: string) =>
    value.length <= schema.maxLength &&
    (schema.pattern === undefined || new RegExp(schema.pattern).test(value));

  it("take the ids this server makes, and no longer", () => {
    const apiKeyId = generateKey("api").id;
    expect(accepts(PATH_IDS.apiKey, apiKeyId)).toBe(true);
    expect(apiKeyId).toHaveLength(PATH_IDS.apiKey.maxLength);
    const token = generateSecretToken();
    expect(accepts(PATH_IDS.mailedToken, token)).toBe(true);
    expect(token).toHaveLength(PATH_IDS.mailedToken.maxLength);
    expect(accepts(PATH_IDS.uuid, crypto.randomUUID())).toBe(true);
    // The longest credential id WebAuthn allows (1023 bytes) in Base64URL.
    expect(accepts(PATH_IDS.passkey, Buffer.alloc(1023, 0xff).toString("base64url"))).toBe(true);
    expect(accepts(PATH_IDS.passkey, Buffer.alloc(1024, 0xff).toString("base64url"))).toBe(false);
  });
});
