import { describe, expect, it } from "vitest";
import { DETAIL } from "../../contract/messages.ts";
import { ORG_DETAIL } from "../../contract/org-messages.ts";
import type { OrgRole } from "../../contract/org-roles.ts";
import { ORG_TEXT } from "../../contract/orgs.ts";
import {
  capFromInput,
  forfeitOf,
  invitableRoles,
  inviteRefusal,
  keysStoppedByRemoval,
  memberOffer,
  nextBerlinMonthStart,
  orgErrorMessage,
  orgName,
  pathAfterSwitch,
  seesSettings,
} from "./org-view.ts";
import { ERROR_TEXT } from "./ui-text.ts";

describe("orgName", () => {
  it.each([
    [{ name: null, personal: true }, "Personal"],
    [{ name: "Acme", personal: false }, "Acme"],
    // A personal organisation is "Personal" whatever name an answer carries.
    [{ name: "ignored", personal: true }, "Personal"],
    [{ name: null, personal: false }, ""],
  ])("%o -> %s", (org, name) => {
    expect(orgName(org)).toBe(name);
  });
});

describe("invitableRoles", () => {
  it.each([
    ["owner", ["manager", "billing", "developer"]],
    ["manager", ["manager", "developer"]],
    ["billing", []],
    ["developer", []],
  ] as const)("%s may invite as %o", (actor, roles) => {
    expect(invitableRoles(actor)).toEqual(roles);
  });
});

describe("memberOffer", () => {
  const ref = (userId: string, role: OrgRole) => ({ userId, role });
  const ALL = ["owner", "manager", "billing", "developer"];
  it.each([
    // An owner changes anyone, but never demotes the last owner (themselves included).
    ["owner", "developer", 1, { roles: ALL, cap: true, remove: true }],
    ["owner", "owner", 2, { roles: ALL, cap: true, remove: true }],
    // A manager moves developers and managers between those two roles only.
    ["manager", "developer", 1, { roles: ["manager", "developer"], cap: true, remove: true }],
    ["manager", "manager", 1, { roles: ["manager", "developer"], cap: true, remove: true }],
    ["manager", "billing", 1, { roles: [], cap: false, remove: true }],
    ["manager", "owner", 1, { roles: [], cap: false, remove: false }],
    // Billing members and developers change nobody.
    ["billing", "developer", 1, { roles: [], cap: false, remove: false }],
    ["developer", "developer", 1, { roles: [], cap: false, remove: false }],
  ] as const)("%s looking at another %s (%i owners)", (actor, target, owners, offer) => {
    expect(memberOffer(ref("a", actor), ref("b", target), owners)).toEqual(offer);
  });

  it.each([
    // On their own row: only an owner changes their own role or cap; anyone may leave but the last owner.
    ["owner", 2, { roles: ALL, cap: true, remove: true }],
    ["owner", 1, { roles: [], cap: true, remove: false }],
    ["manager", 1, { roles: [], cap: false, remove: true }],
    ["billing", 1, { roles: [], cap: false, remove: true }],
    ["developer", 1, { roles: [], cap: false, remove: true }],
  ] as const)("a %s on their own row (%i owners)", (role, owners, offer) => {
    expect(memberOffer(ref("a", role), ref("a", role), owners)).toEqual(offer);
  });
});

describe("pathAfterSwitch", () => {
  it("loads the same page again, acting on the new choice", () => {
    for (const path of ["/", "/profile", "/profile/api-keys", "/org/members", "/plans", "/invitationsx/a"])
      expect(pathAfterSwitch(path)).toBeNull();
  });

  it("leaves a page of a used-up mailed link for /profile", () => {
    for (const path of [
      "/invitations/tok",
      "/invitations",
      "/verify-email/tok",
      "/reset-password/tok",
      "/confirm-email/tok",
    ])
      expect(pathAfterSwitch(path)).toBe("/profile");
  });

  it("looks at the start of the path only", () => {
    expect(pathAfterSwitch("/profile/invitations/tok")).toBeNull();
  });
});

describe("seesSettings", () => {
  it.each([
    ["owner", true],
    ["manager", true],
    ["billing", false],
    ["developer", false],
  ] as const)("%s -> %s", (role, sees) => {
    expect(seesSettings(role)).toBe(sees);
  });
});

describe("capFromInput", () => {
  it.each([
    ["", null],
    ["   ", null],
    ["0", 0],
    ["250", 250],
    [" 1,000.5 ", 1000.5],
    ["0.125", 0.125],
  ])("%j -> %s", (text, cap) => {
    expect(capFromInput(text)).toBe(cap);
  });

  it("reads what is not a number as NaN, for the schema to refuse", () => {
    expect(capFromInput("ten")).toBeNaN();
  });
});

describe("nextBerlinMonthStart", () => {
  it.each([
    // Winter: midnight in Berlin (CET) is 23:00 UTC the day before.
    ["2026-11-26T21:00:00Z", "2026-11-30T23:00:00.000Z"],
    ["2026-12-31T12:00:00Z", "2026-12-31T23:00:00.000Z"],
    // 23:30 UTC on 31 December is already January in Berlin: the next start is February's.
    ["2026-12-31T23:30:00Z", "2027-01-31T23:00:00.000Z"],
    // Summer: midnight in Berlin (CEST) is 22:00 UTC the day before.
    ["2026-06-15T10:00:00Z", "2026-06-30T22:00:00.000Z"],
    // Across the clock changes: March (CET) to April (CEST), September (CEST) to October (CEST),
    // October (CEST then CET) to November (CET).
    ["2026-03-10T10:00:00Z", "2026-03-31T22:00:00.000Z"],
    ["2026-09-30T21:59:00Z", "2026-09-30T22:00:00.000Z"],
    ["2026-10-30T10:00:00Z", "2026-10-31T23:00:00.000Z"],
  ])("at %s -> %s", (now, start) => {
    expect(nextBerlinMonthStart(new Date(now)).toISOString()).toBe(start);
  });
});

describe("inviteRefusal", () => {
  it.each([
    // About the address: a member's, and its mailbox's mails used up (decision 024); editing the
    // address clears them.
    [409, ORG_DETAIL.alreadyMember, { message: ORG_DETAIL.alreadyMember, about: "address" }],
    [429, ORG_DETAIL.mailboxBusy, { message: ORG_DETAIL.mailboxBusy, about: "address" }],
    // A pending one: the form points to its Resend.
    [409, ORG_DETAIL.alreadyInvited, { message: ORG_DETAIL.alreadyInvited, about: "invited" }],
    // About sending: the organisation's own limits, in words of their own; they stay until the
    // next attempt, since any other address is refused alike.
    [429, ORG_TEXT.tooManyInvitesPerHour, { message: ORG_TEXT.tooManyInvitesPerHour, about: "sending" }],
    [429, ORG_TEXT.tooManyInvitesPerDay, { message: ORG_TEXT.tooManyInvitesPerDay, about: "sending" }],
    [409, ORG_DETAIL.tooManyPending, { message: ORG_DETAIL.tooManyPending, about: "sending" }],
    // The inviter's own signed-in writes used up (the generic 429): about them, not the address,
    // so a toast (orgErrorMessage), whichever address is typed.
    [429, DETAIL.tooManyRequests, null],
    // No words of the server's: a toast (orgErrorMessage).
    [429, undefined, null],
    [409, undefined, null],
    [409, "", null],
    [409, [{ loc: ["body", "email"], msg: "x", type: "custom" }], null],
    // Other statuses with the same words are not these refusals.
    [400, DETAIL.tooManyRequests, null],
    [403, ORG_DETAIL.notAllowed, null],
    [422, DETAIL.tooManyRequests, null],
    [404, ORG_DETAIL.alreadyInvited, null],
    [undefined, DETAIL.tooManyRequests, null],
  ])("%s %j -> %j", (status, detail, refusal) => {
    expect(inviteRefusal({ status, detail })).toEqual(refusal);
  });
});

describe("orgErrorMessage", () => {
  it.each([
    [
      403,
      "Your role in this organisation does not allow this",
      "Your role in this organisation does not allow this",
    ],
    [404, "Organisation not found", "Organisation not found"],
    [409, "That address already has a pending invitation", "That address already has a pending invitation"],
    [
      429,
      "You sent 20 invitations in the last hour: try again later.",
      "You sent 20 invitations in the last hour: try again later.",
    ],
    // 429 without words: the portal's own; the signed-in writes' limit says the same.
    [429, undefined, ERROR_TEXT.tooManyRequests],
    [429, DETAIL.tooManyRequests, ERROR_TEXT.tooManyRequests],
    // A session that ended, a list of field problems, a server failure or no answer: never raw.
    [401, "Could not validate credentials", ERROR_TEXT.oops],
    [422, [{ loc: ["body", "name"], msg: "x", type: "custom" }], ERROR_TEXT.oops],
    [500, "Internal Server Error", ERROR_TEXT.oops],
    [undefined, undefined, ERROR_TEXT.oops],
    [400, "Bad request", "Bad request"],
    [499, "Closed", "Closed"],
    [399, "Not a refusal", ERROR_TEXT.oops],
    [422, "Unprocessable", ERROR_TEXT.oops],
    [undefined, "No answer", ERROR_TEXT.oops],
  ])("%s %j -> %s", (status, detail, message) => {
    expect(orgErrorMessage({ status, detail })).toBe(message);
  });
});

describe("keysStoppedByRemoval", () => {
  const key = (id: string, createdBy: string | null, shared = false) => ({
    id,
    name: id,
    prefix: "gpk_x",
    created_by: createdBy === null ? null : { user_id: createdBy },
    shared,
  });

  it("names the keys the member made that are not shared", () => {
    const keys = [key("mine", "dev"), key("shared", "dev", true), key("other", "boss"), key("gone", null)];
    expect(keysStoppedByRemoval(keys, "dev")?.map((k) => k.id)).toEqual(["mine"]);
  });

  it("answers none for a member without keys, and for an empty list", () => {
    expect(keysStoppedByRemoval([key("other", "boss")], "dev")).toEqual([]);
    expect(keysStoppedByRemoval([], "dev")).toEqual([]);
  });

  it("cannot tell when the list does not say who made each key", () => {
    expect(keysStoppedByRemoval([{ id: "k", name: "k", prefix: "gpk_k" }], "dev")).toBeNull();
  });
});

describe("forfeitOf", () => {
  it.each([
    [
      { detail: "x", credits: 120.5, subscription_days: 12 },
      { credits: 120.5, subscriptionDays: 12 },
    ],
    [
      { detail: "x", credits: 0, subscription_days: 0 },
      { credits: 0, subscriptionDays: 0 },
    ],
    [{ detail: "x", credits: "120", subscription_days: 12 }, null],
    [{ detail: "x", credits: 1 }, null],
    [{ detail: "A personal organisation has no other members" }, null],
    [null, null],
    [undefined, null],
    ["Conflict", null],
    [409, null],
  ])("%j -> %j", (body, forfeit) => {
    expect(forfeitOf(body)).toEqual(forfeit);
  });
});
