// What a deleted account leaves in the audit log, for how long and why (decision 021), as the
// account-deletion mail and the "Your data" section of /profile/security say it. The log is an
// append-only hash chain (decision 016): no entry can be changed or removed before its retention
// ends, so deleting an account does not erase them. The durations are audit-prune.ts's
// RETENTION_MONTHS, and the kinds its isSecurityEvent (server/mail/security-templates.test.ts
// holds them together).

export const AUDIT_LOG_KEPT = {
  title: "What our security log keeps",
  intro:
    "Our security log is not erased with your account: it is tamper-evident, so no entry can be changed or removed before its time is up. It keeps:",
  securityEvents:
    "Sign-ins (also failed ones), sign-outs, password confirmations, and changes of your password, e-mail address, two-factor sign-in (also tries with a wrong code) and passkeys (with the passkey's name), and invitations to, joining, role and credit cap changes in and leaving an organisation: each with the time, your username, the IP address and the browser's User-Agent, for 13 months, to investigate misuse of your account (GDPR art. 17(3)(e), legal claims). The e-mail address itself is not in these entries.",
  operatorActions:
    "What our staff did on your account (credits, refunds, cancellations, role changes, the account disabled or put on hold, API keys revoked, e-mails sent, with the address each was sent to, and the reason they gave), organisations you created, renamed, handed over or deleted, your revoking all your API keys (with the IP address and User-Agent) and the deletion itself (with the IP address): for 10 years, like the invoices and payments they explain (GDPR art. 17(3)(b), legal obligation, § 147 AO, and (e)).",
  order:
    "The log is removed oldest entry first, so an entry goes only once every older entry's time is up: a security event can stay beyond 13 months, at most as long as an older staff entry (10 years).",
} as const;
