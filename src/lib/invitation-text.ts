// The words of /invitations/{token} (ORGANISATIONS.md "Pages"), apart from the organisation
// pages' (org-text.ts): the page is public and carries only its own.

export const INVITATION_TEXT = {
  title: "Invitation",
  loading: "Loading the invitation…",
  invalid: "This invitation is invalid, was already used or has expired. Ask for a new one.",
  lead: (org: string) => `You are invited to join ${org}`,
  role: "Role",
  from: "Invited by",
  expires: "Valid until",
  accept: "Accept invitation",
  accepting: "Joining…",
  /** The lead once accepted, in place of `lead`. */
  acceptedTitle: (org: string) => `You joined ${org}`,
  accepted: "Invitation accepted.",
  acceptedBody:
    "The portal still shows the organisation you chose before. Switch now, or later in the account menu.",
  switchTo: (org: string) => `Switch to ${org}`,
  stay: "Not now",
  signInFirst:
    "Log in with the invited e-mail address to accept, or register with it if you have no account yet.",
  logIn: "Log In",
  register: "Register",
} as const;
