// What the "Delete your account?" dialog of /profile/security says deleting does, one point a
// line, for scanning before typing the username: the facts of SECURITY_TEXT.data.deleteBody, which
// the page itself shows as one paragraph (what the erasure does: server/routes/users/account-data.ts
// and accounts/account-deletion.ts; what it keeps: contract/data-retention.ts).
export const ACCOUNT_DELETION_POINTS = {
  lead: "Deleting your account takes effect at once and cannot be undone:",
  points: [
    "Your plan ends now, without a refund.",
    "Your remaining credits are lost.",
    "Your API keys are revoked.",
    "You leave your organisations. One you are the only member of is deleted, with its plan and credits.",
    "Your personal data is erased, except invoices (kept 10 years, as the law requires) and our security log's entries about you (13 months to 10 years).",
    "An account registered again with your address does not get the free credits a second time.",
  ],
} as const;
