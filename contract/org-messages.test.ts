import { describe, expect, it } from "vitest";
import { choiceLost, maskEmail, ORG_DETAIL, orgNameProblem } from "./org-messages.ts";

describe("organisation names", () => {
  it("takes 2 to 60 printable characters, trimmed", () => {
    expect(orgNameProblem("Acme GmbH & Co. KG")).toBeNull();
    expect(orgNameProblem("  Ab  ")).toBeNull();
    expect(orgNameProblem("A")).toBe("Use 2 to 60 characters");
    expect(orgNameProblem("  A  ")).toBe("Use 2 to 60 characters");
    expect(orgNameProblem("x".repeat(60))).toBeNull();
    expect(orgNameProblem("x".repeat(61))).toBe("Use 2 to 60 characters");
  });

  it("refuses < > / : and line breaks or other control characters", () => {
    for (const bad of ["a<b", "a>b", "a/b", "a:b", "a\nb", "a\u0007b", "a\u2028b", "a\u200bb"]) {
      expect(orgNameProblem(bad), JSON.stringify(bad)).toBe(
        "Use letters, digits, spaces and punctuation other than < > / :",
      );
    }
  });

  it("refuses the personal organisation's name in any case", () => {
    expect(ORG_DETAIL.personalName).toBe("Personal");
    expect(orgNameProblem("personal")).toBe('"Personal" is the name of your own account');
    expect(orgNameProblem(" PERSONAL ")).toBe('"Personal" is the name of your own account');
    expect(orgNameProblem("Personal team")).toBeNull();
  });
});

describe("masked addresses", () => {
  it("shows the first character and the domain", () => {
    expect(maskEmail("ann@example.com")).toBe("a•••@example.com");
    expect(maskEmail("a@b.de")).toBe("a•••@b.de");
    expect(maskEmail("x@y@example.com")).toBe("x•••@example.com");
    expect(maskEmail("@example.com")).toBe("•••");
    expect(maskEmail("no-at-sign")).toBe("•••");
  });

  it("words the wrong-address refusal with the masked address", () => {
    expect(ORG_DETAIL.wrongAddress("a•••@example.com")).toBe(
      "This invitation is for a•••@example.com. Sign in with that address to accept it.",
    );
  });
});

describe("a chosen organisation that is gone", () => {
  it("says it was deleted when the answer says so, else that the user is no longer a member", () => {
    expect(choiceLost({ chosen_organization_deleted: true })).toBe("That organisation was deleted");
    expect(choiceLost({ chosen_organization_deleted: false })).toBe(ORG_DETAIL.noLongerMember);
    expect(choiceLost({})).toBe(ORG_DETAIL.noLongerMember);
    expect(ORG_DETAIL.noLongerMember).not.toBe(ORG_DETAIL.orgDeleted);
  });
});
