// Why a browser's passkey dialog made no passkey or answer, from what @simplewebauthn/browser throws:
// its WebAuthnError's `code`, whose `name` is the browser's DOMException's. A closed dialog and a
// timeout are one NotAllowedError, which the browser keeps apart on purpose: both read "cancelled".
export type PasskeyFailure = "cancelled" | "alreadyAdded" | "wrongAddress";

export function passkeyFailure(error: unknown): PasskeyFailure {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  // Adding a passkey the authenticator already holds for this account (the excluded credentials).
  if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" || name === "InvalidStateError")
    return "alreadyAdded";
  // The page's address is not the portal's domain (an IP address, another host): no passkey works here.
  if (code === "ERROR_INVALID_DOMAIN" || code === "ERROR_INVALID_RP_ID" || name === "SecurityError")
    return "wrongAddress";
  return "cancelled";
}
