import { describe, expect, it } from "vitest";
import { keyRefusal } from "./key-refusal.ts";

const NOW = new Date("2026-11-20T12:00:00.000Z");
const key = (over: Partial<Parameters<typeof keyRefusal>[0] & object> = {}) => ({
  revokedAt: null,
  expiresAt: null,
  features: null,
  ...over,
});

describe("keyRefusal", () => {
  it("lets a usable key pay for any feature when it names none", () => {
    expect(keyRefusal(key(), "comic", NOW)).toBeNull();
    expect(keyRefusal(key(), undefined, NOW)).toBeNull();
  });

  it("refuses a missing, revoked or expired key as no key", () => {
    expect(keyRefusal(undefined, "comic", NOW)).toBe("no_key");
    expect(keyRefusal(key({ revokedAt: new Date("2026-11-01") }), "comic", NOW)).toBe("no_key");
    expect(keyRefusal(key({ expiresAt: NOW }), "comic", NOW)).toBe("no_key");
    expect(keyRefusal(key({ expiresAt: new Date(NOW.getTime() + 1) }), "comic", NOW)).toBeNull();
  });

  it("refuses a feature the key does not name, and lets a charge by amount through", () => {
    const comics = key({ features: ["comic"] });
    expect(keyRefusal(comics, "comic", NOW)).toBeNull();
    expect(keyRefusal(comics, "poster", NOW)).toBe("feature_not_allowed");
    expect(keyRefusal(comics, undefined, NOW)).toBeNull();
    expect(keyRefusal(key({ features: [] }), "comic", NOW)).toBe("feature_not_allowed");
  });
});
