import { describe, expect, it } from "vitest";
import { AUDIT_LOG_KEPT } from "../../contract/data-retention.ts";
import { isSecurityEvent, RETENTION_MONTHS } from "../audit/audit-prune.ts";
import { accountDeletedMail } from "./security-templates.ts";

describe("accountDeletedMail: what the deletion erases and what the audit log keeps (decision 021)", () => {
  const mail = accountDeletedMail({
    to: "ann@example.com",
    username: "ann",
    portalUrl: "https://portal.example",
    at: "15 January 2030, 11:00",
    ip: "203.0.113.7",
    lost: { plan: null, credits: 0 },
  });

  it("does not claim everything personal is erased: it says what is kept, for how long and why", () => {
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain("your personal data has been erased, except what the law and the security");
      expect(body).toContain("Invoices and payment records are kept as issued");
      expect(body).toContain("Our security log is not erased with your account");
    }
    expect(mail.text).toContain(AUDIT_LOG_KEPT.securityEvents);
    expect(mail.text).toContain(AUDIT_LOG_KEPT.operatorActions);
    expect(mail.text).toContain(AUDIT_LOG_KEPT.order);
  });

  it("names the fields the security events keep, their time and the ground of each kind", () => {
    expect(AUDIT_LOG_KEPT.securityEvents).toMatch(
      /your username, the IP address and the browser's User-Agent, for 13 months.*art\. 17\(3\)\(e\)/,
    );
    expect(AUDIT_LOG_KEPT.operatorActions).toMatch(/e-mails sent, with the address each was sent to/);
    expect(AUDIT_LOG_KEPT.operatorActions).toMatch(/for 10 years.*art\. 17\(3\)\(b\).*§ 147 AO/);
  });

  it("says the durations the pruning keeps", () => {
    expect(AUDIT_LOG_KEPT.securityEvents).toContain(`for ${RETENTION_MONTHS.securityEvent} months`);
    expect(AUDIT_LOG_KEPT.operatorActions).toContain(`for ${RETENTION_MONTHS.operatorAction / 12} years`);
  });

  it("sorts the events as the pruning does: the account's own security events, then the rest", () => {
    // Named in AUDIT_LOG_KEPT.securityEvents (13 months).
    const securityEvents = [
      "login.succeeded",
      "login.failed",
      "session.logout",
      "session.logout_all",
      "session.reauth",
      "password.changed",
      "password.reset",
      "email.change_requested",
      "email.changed",
      "email.change_reverted",
      "email.change_cancelled",
      "mfa.enabled",
      "mfa.disabled",
      "mfa.disable_failed",
      "mfa.recovery_codes_renewed",
      "mfa.recovery_codes_renew_failed",
      "passkey.added",
      "passkey.removed",
      "member.invite",
      "member.invite_revoke",
      "member.join",
      "member.role_change",
      "member.cap_change",
      "member.remove",
      "member.leave",
    ];
    // Named in AUDIT_LOG_KEPT.operatorActions (10 years).
    const operatorActions = [
      "credits.grant",
      "payment.refund",
      "subscription.cancel",
      "role.change",
      "account.disable",
      "account.dispute_hold",
      "key.revoke",
      "mail.send",
      "api_keys.revoke_all",
      "account.deleted",
      "org.create",
      "org.rename",
      "org.transfer",
      "org.delete",
    ];
    expect(securityEvents.filter((a) => !isSecurityEvent(a))).toEqual([]);
    expect(operatorActions.filter(isSecurityEvent)).toEqual([]);
  });
});

describe("accountDeletedMail: what the deletion ended, in the words of a team's deletion mail", () => {
  const mailWith = (lost: Parameters<typeof accountDeletedMail>[0]["lost"]) =>
    accountDeletedMail({
      to: "ann@example.com",
      username: "ann",
      portalUrl: "https://portal.example",
      at: "15 January 2030, 11:00",
      ip: null,
      lost,
    });

  it("says the paid plan ended without a refund for the days left, and the credits written off", () => {
    const mail = mailWith({ plan: { name: "Tier B", daysLeft: 12 }, credits: 1234.5 });
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain(
        "This confirms that your Tier B subscription ended then, at once and without a refund for the 12 paid days left, and is not renewed.",
      );
      expect(body).toContain("Your 1,234.5 credits were written off: they can no longer be used.");
    }
    // One day is a day; none left: no days named.
    expect(mailWith({ plan: { name: "Tier B", daysLeft: 1 }, credits: 0 }).text).toContain(
      "without a refund for the 1 paid day left, and",
    );
    expect(mailWith({ plan: { name: "Tier B", daysLeft: 0 }, credits: 0.001 }).text).toContain(
      "your Tier B subscription ended then, at once and without a refund, and is not renewed.",
    );
    expect(mailWith({ plan: null, credits: 0.001 }).text).toContain("Your 0.001 credits were written off");
  });

  it("names no plan and no credits when there were none", () => {
    const mail = mailWith({ plan: null, credits: 0 });
    expect(mail.text).not.toMatch(/subscription|credits were/);
    expect(mail.text).toContain("Its API keys no longer work, and your personal data has been erased");
  });
});
