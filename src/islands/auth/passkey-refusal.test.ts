import { describe, expect, it } from "vitest";
import { DETAIL } from "../../../contract/messages.ts";
import { ApiError } from "../../lib/api-client.ts";
import { REAUTH_TEXT } from "../../lib/reauth-text.ts";
import { passkeyRefusal } from "./ReauthDialog.tsx";

/** What @simplewebauthn/browser throws: a WebAuthnError with the browser's DOMException's name. */
const browserSaid = (code: string, name: string) => Object.assign(new Error(code), { code, name });

describe("what the re-authentication dialog says to a passkey that gave no answer", () => {
  it("names an address no passkey works on, with the password as the way out only where it is asked", () => {
    const wrongAddress = browserSaid("ERROR_INVALID_DOMAIN", "SecurityError");
    expect(passkeyRefusal(wrongAddress, true)).toBe(REAUTH_TEXT.passkeyWrongAddress);
    // A staff account whose only second factor is a passkey (decision 046): trying again never helps.
    expect(passkeyRefusal(wrongAddress, false)).toBe(REAUTH_TEXT.passkeyWrongAddressOnly);
    expect(passkeyRefusal(browserSaid("ERROR_INVALID_RP_ID", "SecurityError"), false)).toBe(
      REAUTH_TEXT.passkeyWrongAddressOnly,
    );
  });

  it("calls a closed dialog or a timeout cancelled", () => {
    const closed = browserSaid("ERROR_CEREMONY_ABORTED", "NotAllowedError");
    expect(passkeyRefusal(closed, true)).toBe(REAUTH_TEXT.passkeyCancelled);
    expect(passkeyRefusal(closed, false)).toBe(REAUTH_TEXT.passkeyCancelledOnly);
  });

  it("says the server's reason for a passkey it did not accept", () => {
    const refused = new ApiError(400, DETAIL.passkeyNotConfirmed, "refused");
    expect(passkeyRefusal(refused, true)).toBe(DETAIL.passkeyNotConfirmed);
    expect(passkeyRefusal(refused, false)).toBe(REAUTH_TEXT.passkeyNotConfirmedOnly);
  });
});
