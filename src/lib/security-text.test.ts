import { describe, expect, it } from "vitest";
import { SECURITY_EVENT_PREFIXES } from "../../contract/security-events.ts";
import { SECURITY_EVENT_NAMES, SECURITY_TEXT } from "./security-text.ts";

describe("SECURITY_EVENT_NAMES: how /profile/security names each event of the account", () => {
  it("names a wrong code given to turn two-factor off or to make new recovery codes, by the call", () => {
    expect(SECURITY_EVENT_NAMES["mfa.disable_failed"]).toBe(
      "Wrong code given to turn two-factor authentication off",
    );
    expect(SECURITY_EVENT_NAMES["mfa.recovery_codes_renew_failed"]).toBe(
      "Wrong code given to make new recovery codes",
    );
  });

  it("names a wrong current password given to change the password, which is no sign-in", () => {
    expect(SECURITY_EVENT_NAMES["password.change_failed"]).toBe(
      "Wrong current password given to change the password",
    );
  });

  it("names only events the list shows, each with words of its own", () => {
    const names = Object.entries(SECURITY_EVENT_NAMES);
    const shown = (action: string) => SECURITY_EVENT_PREFIXES.some((prefix) => action.startsWith(prefix));
    expect(names.filter(([action]) => !shown(action))).toEqual([]);
    expect(new Set(names.map(([, text]) => text)).size).toBe(names.length);
  });
});

describe("SECURITY_TEXT.events.wrongPasswordsNotListed: the wrong passwords the list leaves out", () => {
  it("counts them in words that agree with the number", () => {
    const said = SECURITY_TEXT.events.wrongPasswordsNotListed;
    expect(said(1)).toBe("1 earlier failed sign-in with a wrong password is not listed.");
    expect(said(20)).toBe("20 earlier failed sign-ins with a wrong password are not listed.");
  });
});
