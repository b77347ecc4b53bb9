// The deletion's mail says only what the deletion ended: each part when there was one, in the
// singular or plural it takes, and no page of the organisation (orgs.test.ts sends it through the API).
import { describe, expect, it } from "vitest";
import { PRODUCT_NAME } from "../mail/templates.ts";
import { type OrgDeletion, orgDeletedMail } from "./org-mails.ts";

describe("orgDeletedMail", () => {
  const deletion: OrgDeletion = {
    orgId: "7d0c2b6e-0000-4000-8000-000000000001",
    orgName: "Smith & Sons",
    deletedBy: { username: "ann", email: "Ann@Example.com" },
    plan: null,
    credits: 0,
    autoTopUpWasOn: false,
    card: null,
    keysRevoked: 0,
    invitationsRevoked: 0,
  };
  const mail = (recipient: { email: string; username: string }, changes: Partial<OrgDeletion> = {}) =>
    orgDeletedMail(recipient, {
      ...deletion,
      ...changes,
      at: "2026-12-01 09:48 CET",
      portalUrl: "https://portal.example",
    });
  const bob = { email: "bob@example.com", username: "bob" };

  it("with nothing to end, says who deleted it, when, and that the invoices are kept", () => {
    const { subject, text, html } = mail(bob);
    expect(subject).toBe("Organisation Smith & Sons was deleted");
    expect(text).toContain(
      `ann deleted the ${PRODUCT_NAME} organisation "Smith & Sons" on 2026-12-01 09:48 CET.`,
    );
    expect(text).toContain("Its invoices and payments are kept on record as issued");
    expect(text).not.toMatch(/subscription|credits|Auto top-up|card|API key|invitation/);
    expect(html).toContain("Smith &amp; Sons");
    expect(text).not.toMatch(/\/org\/|\/profile/);
  });

  it("tells the owner who deleted it that they did, whatever the address's case", () => {
    expect(mail({ email: "ann@example.com", username: "ann" }).text).toContain(
      `Hi ann,\n\nYou deleted the ${PRODUCT_NAME} organisation "Smith & Sons"`,
    );
  });

  it("counts in the singular, and leaves out the refund's days when none were left", () => {
    const one = mail(bob, {
      plan: { name: "Tier B", daysLeft: 1 },
      credits: 0.5,
      keysRevoked: 1,
      invitationsRevoked: 2,
    }).text;
    expect(one).toContain(
      "its Tier B subscription ended then, at once and without a refund for the 1 paid day left,",
    );
    expect(one).toContain("Its 0.5 credits were written off");
    expect(one).toContain(
      "Its 1 API key was revoked: programs that used it need a key of another organisation.",
    );
    expect(one).toContain("Its 2 pending invitations were revoked.");
    expect(mail(bob, { plan: { name: "Tier B", daysLeft: 0 } }).text).toContain(
      "ended then, at once and without a refund, and is not renewed.",
    );
  });

  it("names auto top-up and the card only as far as they were there", () => {
    expect(mail(bob, { autoTopUpWasOn: true }).text).toContain("Auto top-up was turned off.");
    const cardOnly = mail(bob, { card: { last4: "4242" } }).text;
    expect(cardOnly).toContain("The saved card ending in 4242 was removed.");
    expect(cardOnly).not.toContain("Auto top-up");
  });
});
