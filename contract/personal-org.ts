// A personal organisation's name in the portal (ORGANISATIONS.md), on its own: a page that names one
// (the e-mail change's review on /profile/security) need not carry every organisation message, which
// the portal loads with the first call that needs them (org-messages.ts).
export const PERSONAL_ORG_NAME = "Personal";
