import { describe, expect, it } from "vitest";
import { passkeyFailure } from "./passkey-failure.ts";

/** As @simplewebauthn/browser throws it: a WebAuthnError with the browser's error's name and a code. */
const thrown = (name: string, code?: string) => Object.assign(new Error("x"), { name, code });

describe("passkeyFailure: why the browser's passkey dialog gave nothing", () => {
  it.each([
    [thrown("InvalidStateError", "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED"), "alreadyAdded"],
    [thrown("InvalidStateError"), "alreadyAdded"],
    [thrown("SecurityError", "ERROR_INVALID_DOMAIN"), "wrongAddress"],
    [thrown("SecurityError", "ERROR_INVALID_RP_ID"), "wrongAddress"],
    [thrown("SecurityError"), "wrongAddress"],
    [thrown("NotAllowedError", "ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY"), "cancelled"],
    [thrown("AbortError", "ERROR_CEREMONY_ABORTED"), "cancelled"],
    [new Error("anything else"), "cancelled"],
    [undefined, "cancelled"],
    ["text", "cancelled"],
  ])("%s -> %s", (error, failure) => {
    expect(passkeyFailure(error)).toBe(failure);
  });
});
