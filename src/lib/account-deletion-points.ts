// What the "Delete your account?" dialog of /profile/security says deleting does, one point a
// line, for scanning before typing the username: the consequences in SECURITY_TEXT.data.deleteBody,
// the paragraph the page shows right above the button (what the erasure does:
// server/routes/users/account-data.ts and accounts/account-deletion.ts; what it keeps:
// contract/data-retention.ts). The dialog names what is kept from the erasure, not for how long:
// the paragraph says that (invoices 10 years, the security log 13 months to 10 years), beside
// "What our security log keeps", and the dialog would only repeat it.
export const ACCOUNT_DELETION_POINTS = {
  lead: "Deleting your account takes effect at once and cannot be undone:",
  points: [
    "Your plan ends now, without a refund.",
    "Your remaining credits are lost.",
    "Your API keys are revoked.",
    "You leave your organisations. One you are the only member of is deleted, with its plan and credits.",
    "Your personal data is erased, except invoices and our security log's entries about you.",
    "An account registered again with your address does not get the free credits a second time.",
  ],
} as const;
