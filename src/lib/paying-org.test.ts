import { describe, expect, it } from "vitest";
import { PAYING_ORG_TEXT, payingOrganisation } from "./paying-org.ts";

const org = (personal: boolean, name: string | null) => ({
  organization: { id: "o", name, personal, role: "owner" as const },
});

describe("the organisation a money dialog names", () => {
  it.each([
    ["a team organisation by its name", org(false, "Acme"), "Acme"],
    ["nothing for the personal organisation", org(true, null), null],
    ["nothing when the answer has no organisation (an older server)", {}, null],
    ["nothing for a team organisation without a name", org(false, null), null],
  ])("%s", (_case, user, expected) => {
    expect(payingOrganisation(user)).toBe(expected);
  });

  it("says it in each dialog", () => {
    expect(PAYING_ORG_TEXT.changePlan("Acme")).toBe("This changes the plan of Acme, paid with its card.");
    expect(PAYING_ORG_TEXT.cancel("Acme")).toBe("This cancels the plan of Acme.");
    expect(PAYING_ORG_TEXT.topUp("Acme")).toBe("The credits go to Acme and are paid on its invoice.");
    expect(PAYING_ORG_TEXT.subscribe("Acme")).toBe(" for Acme");
  });
});
