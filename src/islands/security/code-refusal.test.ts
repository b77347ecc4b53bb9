import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { ApiError } from "../../lib/api-client.ts";
import { ERROR_TEXT } from "../../lib/ui-text.ts";
import { codeRefusal } from "./CodeDialog.tsx";

const answer = (status: number, detail: unknown) => new ApiError(status, detail, "refused");

describe("what the code dialogs say to a refused code", () => {
  it("says a wrong code is wrong, and that renewing takes an app code", () => {
    expect(codeRefusal(answer(400, DETAIL.incorrectCode))).toBe(DETAIL.incorrectCode);
    expect(codeRefusal(answer(400, DETAIL.appCodeNeeded))).toBe(DETAIL.appCodeNeeded);
    // Another 400's words are not shown as they come: it is still an incorrect code.
    expect(codeRefusal(answer(400, "something else"))).toBe(DETAIL.incorrectCode);
  });

  it("names the account's limit of wrong codes, and any other 429 as too many requests", () => {
    expect(codeRefusal(answer(429, DETAIL.tooManyWrongCodes))).toBe(DETAIL.tooManyWrongCodes);
    expect(codeRefusal(answer(429, "Too many signed-in writes"))).toBe(ERROR_TEXT.tooManyRequests);
    expect(codeRefusal(answer(429, undefined))).toBe(ERROR_TEXT.tooManyRequests);
  });

  it("says why an app's confirmation with a session of the password alone was refused (decision 046)", () => {
    expect(codeRefusal(answer(403, DETAIL.secondFactorSignInRequired))).toBe(
      DETAIL.secondFactorSignInRequired,
    );
    expect(codeRefusal(answer(403, "Not enough permissions"))).toBe(ERROR_TEXT.oops);
  });
});
