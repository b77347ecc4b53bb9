import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { ADMIN_PAGE_TEXT } from "./admin-text.ts";

describe("the console's words", () => {
  it("say what the API says when staff sign in without two factors", () => {
    expect(ADMIN_PAGE_TEXT.staffMfaRequired).toBe(DETAIL.staffMfaRequired);
  });
});
