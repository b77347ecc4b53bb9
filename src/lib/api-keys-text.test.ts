import { describe, expect, it } from "vitest";
import { API_KEYS_TEXT } from "./api-keys-text.ts";

describe("the revoke-all dialog's words", () => {
  it("speak of one key as one key", () => {
    expect(API_KEYS_TEXT.revokeAllBody(1)).toMatch(
      /^Your one key stops working at once, on every program that uses it\. /,
    );
  });

  it("count several keys", () => {
    expect(API_KEYS_TEXT.revokeAllBody(3)).toMatch(
      /^All 3 of your keys stop working at once, on every program that uses them\. /,
    );
    expect(API_KEYS_TEXT.revokeAllBody(3)).toContain("This cannot be undone.");
  });
});
