// The plain rules of the organisation calls: invitation limits and their waits, the days a deletion
// forfeits, which events a billing member sees, whose address an event shows.
import { describe, expect, it } from "vitest";
import { invitationLink, invitationMail } from "./org-mails.ts";
import {
  billingActivityPatterns,
  invitationExpiry,
  invitationLimit,
  isBillingActivity,
  lastSentAt,
  resendWaitSeconds,
  retryAfterSeconds,
  sameAddress,
  subscriptionDaysLeft,
  visibleDetails,
  visibleIp,
  windowStart,
} from "./org-rules.ts";

const NOW = new Date("2026-11-26T12:00:00.000Z");
const at = (ms: number) => new Date(NOW.getTime() + ms);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("invitationLimit", () => {
  it.each([
    [{ pending: 0, byInviterLastHour: 0, byOrgLastDay: 0 }, null],
    [{ pending: 99, byInviterLastHour: 19, byOrgLastDay: 49 }, null],
    [{ pending: 100, byInviterLastHour: 0, byOrgLastDay: 0 }, "pending"],
    [{ pending: 0, byInviterLastHour: 20, byOrgLastDay: 0 }, "per_hour"],
    [{ pending: 0, byInviterLastHour: 0, byOrgLastDay: 50 }, "per_day"],
    // The first that applies: too many pending, then the inviter's hour, then the organisation's day.
    [{ pending: 100, byInviterLastHour: 20, byOrgLastDay: 50 }, "pending"],
    [{ pending: 1, byInviterLastHour: 20, byOrgLastDay: 50 }, "per_hour"],
  ] as const)("%j -> %s", (counts, expected) => {
    expect(invitationLimit(counts)).toBe(expected);
  });
});

describe("windows and waits", () => {
  it("counts an hour back for the inviter and a day back for the organisation", () => {
    expect(windowStart("per_hour", NOW)).toEqual(at(-HOUR));
    expect(windowStart("per_day", NOW)).toEqual(at(-DAY));
  });

  it.each([
    ["per_hour", at(-HOUR / 2), 1800],
    ["per_hour", at(-HOUR + 1), 1],
    ["per_hour", at(-HOUR + 1500), 2],
    ["per_hour", at(-HOUR), 1],
    ["per_hour", at(-2 * HOUR), 1],
    ["per_day", at(-DAY + HOUR), 3600],
  ] as const)("%s with the oldest sent at %s waits %i s", (limit, oldest, seconds) => {
    expect(retryAfterSeconds(limit, oldest, NOW)).toBe(seconds);
  });

  it("ends an invitation 7 days after it was sent", () => {
    expect(invitationExpiry(NOW)).toEqual(at(7 * DAY));
  });
});

describe("subscriptionDaysLeft", () => {
  it.each([
    [null, 0],
    [at(-1), 0],
    [at(0), 0],
    [at(1), 1],
    [at(DAY), 1],
    [at(DAY + 1), 2],
    [at(30 * DAY - 5), 30],
  ] as const)("a period ending %s leaves %i days", (end, days) => {
    expect(subscriptionDaysLeft(end, NOW)).toBe(days);
  });
});

describe("billing activity", () => {
  it.each([
    ["billing_details.change", true],
    ["auto_top_up.enable", true],
    ["subscription.cancel", true],
    ["payment.refund", true],
    ["checkout.expire", true],
    ["credits.grant", true],
    ["invoice.void", true],
    ["member.invite", false],
    ["org.rename", false],
    ["key.revoke", false],
    ["billing_detailschange", false],
    ["xbilling_details.change", false],
  ])("%s is a billing event: %s", (action, billing) => {
    expect(isBillingActivity(action)).toBe(billing);
  });

  it("gives the query the same prefixes as LIKE patterns", () => {
    expect(billingActivityPatterns()).toEqual([
      "billing_details.%",
      "auto_top_up.%",
      "subscription.%",
      "payment.%",
      "checkout.%",
      "credits.%",
      "invoice.%",
    ]);
  });
});

describe("visibleIp", () => {
  it.each([
    ["u1", "u1", "10.0.0.1", "10.0.0.1"],
    ["u2", "u1", "10.0.0.1", null],
    [null, "u1", "10.0.0.1", null],
    ["u1", "u1", null, null],
  ] as const)("an event of %s seen by %s shows %s as %s", (actor, viewer, ip, shown) => {
    expect(visibleIp(actor, viewer, ip)).toBe(shown);
  });
});

describe("sameAddress", () => {
  it.each([
    ["ann@example.com", "ANN@Example.COM", true],
    ["ann@example.com", "ann@example.org", false],
    ["ann@example.com", "anne@example.com", false],
  ])("%s and %s: %s", (a, b, same) => {
    expect(sameAddress(a, b)).toBe(same);
  });
});

describe("the invitation mail", () => {
  it("names the inviter, the organisation, the role and when the link ends, and links to the portal", () => {
    const mail = invitationMail({
      to: "bob@example.com",
      orgName: "Acme <Labs>",
      inviter: "ann",
      role: "billing",
      token: "tok_en",
      expires: "2026-12-03 13:00 CET",
      portalUrl: "https://portal.test",
    });
    expect(mail.to).toBe("bob@example.com");
    expect(mail.subject).toContain("ann invited you to Acme <Labs>");
    expect(mail.text).toContain('join the organisation "Acme <Labs>"');
    expect(mail.text).toContain("as a billing member");
    expect(mail.text).toContain("until 2026-12-03 13:00 CET");
    expect(mail.text).toContain("https://portal.test/invitations/tok_en");
    expect(mail.html).toContain("Acme &lt;Labs&gt;");
    expect(mail.html).not.toContain("<Labs>");
  });

  it("escapes the token in the link", () => {
    expect(invitationLink("https://portal.test", "a/b")).toBe("https://portal.test/invitations/a%2Fb");
  });
});

describe("activity details", () => {
  it("shows a browser only on the viewer's own events", () => {
    const details = { key_id: "k", user_agent: "Firefox" };
    expect(visibleDetails("me", "me", details)).toEqual(details);
    expect(visibleDetails("other", "me", details)).toEqual({ key_id: "k" });
    expect(visibleDetails(null, "me", details)).toEqual({ key_id: "k" });
    const plain = { key_id: "k" };
    expect(visibleDetails("other", "me", plain)).toBe(plain);
  });
});

describe("resends", () => {
  it("waits an hour after an invitation's latest mail", () => {
    const sent = new Date("2026-11-20T10:00:00Z");
    const expires = invitationExpiry(sent);
    expect(lastSentAt(expires)).toEqual(sent);
    expect(resendWaitSeconds(expires, sent)).toBe(3600);
    expect(resendWaitSeconds(expires, new Date("2026-11-20T10:59:59.500Z"))).toBe(1);
    expect(resendWaitSeconds(expires, new Date("2026-11-20T11:00:00Z"))).toBe(0);
    expect(resendWaitSeconds(expires, new Date("2026-11-21T10:00:00Z"))).toBe(0);
  });
});
