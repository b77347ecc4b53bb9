// The bearer token dialog's words (the home page's "Get Bearer Token", the copy field, the API key
// page's curl sample): apart from ui-text.ts, whose words every page loads, so that only the pages
// that show a token carry them.

export const TOKEN_TEXT = {
  open: "Get Bearer Token",
  title: "Copy Bearer Token",
  copy: "Copy",
  copied: "Copied",
  close: "Close",
  // Sign Out revokes the token, and so does confirming the password (POST /v1/reauth answers a
  // new one, decision 018): a copy in a script stops then, and nothing else would say so.
  expires: (when: string) =>
    `This token expires ${when}, or sooner if you sign out or confirm your password again: open this again for the current one.`,
  // An access token always stands for the personal organisation (ORGANISATIONS.md), whatever the
  // top bar shows: a member of a team would otherwise think it spends the team's balance.
  personalCredits: "It spends your personal credits, whichever organisation is chosen here.",
  forPrograms:
    "For a program, or to spend an organisation's credits, create an API key instead: it does not expire every day.",
  apiKeysLink: "API keys",
} as const;
