// The refusal of a call that adds a second factor (an app's setup, a passkey) with a session that
// began with the password alone, on an account whose sign-in asks for a second factor (decision
// 046). Its words say what to do (sign out, sign in again with the factor), so the security page
// shows them where it shows the call's other refusals, not "something went wrong".
import { DETAIL } from "../../contract/messages.ts";
import { asApiError } from "./api-client.ts";

/** The server's words when `error` is that 403; undefined for any other failure. */
export function signInAgainRefusal(error: unknown): string | undefined {
  const { status, detail } = asApiError(error);
  return status === 403 && detail === DETAIL.secondFactorSignInRequired ? detail : undefined;
}
