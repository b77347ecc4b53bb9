import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { ApiError } from "./api-client.ts";
import { signInAgainRefusal } from "./sign-in-again-refusal.ts";

const answer = (status: number | undefined, detail: unknown) => new ApiError(status, detail, "refused");

describe("signInAgainRefusal: a factor added by a session of the password alone (decision 046)", () => {
  it("says the server's words for its 403", () => {
    expect(signInAgainRefusal(answer(403, DETAIL.secondFactorSignInRequired))).toBe(
      DETAIL.secondFactorSignInRequired,
    );
  });

  it("leaves every other failure to the caller's own message", () => {
    expect(signInAgainRefusal(answer(403, DETAIL.reauthRequired))).toBeUndefined();
    expect(signInAgainRefusal(answer(403, DETAIL.accountDisabled))).toBeUndefined();
    expect(signInAgainRefusal(answer(400, DETAIL.secondFactorSignInRequired))).toBeUndefined();
    expect(signInAgainRefusal(answer(undefined, undefined))).toBeUndefined();
    expect(signInAgainRefusal(new Error("NotAllowedError"))).toBeUndefined();
  });
});
