// The words of /profile/security (ACCOUNT-SECURITY.md), beside the page that shows them (not in
// ui-text.ts, which every page carries). /login's code step has its own, in code-step-text.ts.
import { CONFIRM_EMAIL_TEXT } from "./confirm-email-text.ts";
import { PASSKEY_SIGN_IN_TEXT } from "./passkey-sign-in-text.ts";
export const SECURITY_TEXT = {
  title: "Security",
  intro: "Two-factor sign-in, your password and sessions, what happened lately, and your data.",
  loading: "Loading your security settings…",
  twoFactor: {
    title: "Two-factor authentication",
    on: "On",
    off: "Off",
    offBody:
      "Protect your credits and API keys with a second step at sign-in: a code from an authenticator app such as Google Authenticator, 1Password or Aegis.",
    onBody: (left: number) =>
      `Signing in asks for a code from your authenticator app. ${left === 1 ? "1 recovery code is" : `${left} recovery codes are`} left.`,
    start: "Set up two-factor authentication",
    loading: "Loading two-factor settings…",
    loadFailed: "Your two-factor settings could not be loaded. Reload the page to try again.",
    qrAlt: "QR code to scan with your authenticator app",
    scan: "1. Scan this QR code with your authenticator app.",
    manual: "Can't scan it? Enter this key in the app instead:",
    confirmLabel: "2. Enter the 6-digit code the app shows",
    /** Said at the field, without asking the server, for anything but six digits. */
    codeShape: "The code is the 6 digits your authenticator app shows.",
    confirm: "Turn on",
    cancelSetup: "Cancel",
    codesTitle: "Save your recovery codes",
    codesBody:
      "Each code signs you in once if you lose your phone. They are shown only now: keep them in a password manager or print them.",
    copyCodes: "Copy codes",
    copyFailed: "Could not copy: select the codes and copy them yourself.",
    downloadCodes: "Download",
    codesSaved: "I have saved them",
    turnOff: "Turn off",
    turnOffTitle: "Turn off two-factor authentication?",
    turnOffBody:
      "Signing in will need only your password. Enter a code from your app, or a recovery code, to confirm.",
    newCodes: "New recovery codes",
    newCodesTitle: "Make new recovery codes?",
    newCodesBody:
      "Your old recovery codes stop working. Enter a code from your authenticator app to confirm.",
    codeLabel: "Code",
    turnedOn: "Two-factor authentication is on.",
    turnedOff: "Two-factor authentication is off.",
  },
  passkeys: {
    title: "Passkeys",
    body: "Sign in with your fingerprint, face or a security key instead of your password. A passkey also answers the two-factor step.",
    none: "No passkeys yet.",
    nameLabel: "Name for the new passkey",
    namePlaceholder: "e.g. MacBook, YubiKey",
    add: "Add a passkey",
    added: "Passkey added.",
    cancelled: "The passkey was not added: the browser's dialog was closed.",
    alreadyAdded: "The passkey was not added: this device already holds one for your account.",
    wrongAddress: `The passkey was not added. ${PASSKEY_SIGN_IN_TEXT.wrongAddress}`,
    created: "Added",
    lastUsed: "Last used",
    never: "Never",
    synced: "Synced",
    remove: "Remove",
    removeTitle: "Remove this passkey?",
    removeBody: (name: string) => `"${name}" will no longer sign you in.`,
    keep: "Keep it",
    removed: "Passkey removed.",
    loading: "Loading your passkeys…",
    loadFailed: "Your passkeys could not be loaded. Reload the page to try again.",
  },
  /** After the old address changed the e-mail back (issue 30): what was added meanwhile. */
  revertReview: {
    title: "Check what was added while your address was changed",
    body: (changed: string, reverted: string) =>
      `Your e-mail address was changed on ${changed} and changed back on ${reverted}. These were added to your account from the day before the change until it was changed back. If you did not add them, remove them now: whoever changed the address may have added them to get back in.`,
    keepAll: "I added these myself",
    passkeys: "Passkeys",
    apiKeys: "API keys",
    added: "Added",
    /** Under an API key: the organisation whose credits it spends, where it is revoked. */
    organisation: (name: string) => `Organisation: ${name}`,
    removePasskey: "Remove",
    revokeKey: "Revoke",
    removeTitle: "Remove this passkey?",
    removeBody: (name: string) => `"${name}" will no longer sign in to your account.`,
    revokeTitle: "Revoke this API key?",
    revokeBody: (name: string) => `"${name}" stops working at once, on every program that uses it.`,
    keep: "Keep it",
    removed: "Passkey removed.",
    revoked: "API key revoked.",
    twoFactor: (at: string) =>
      `Two-factor authentication was turned on at ${at}. If you did not set it up, turn it off under "Two-factor authentication" with a code from its app or one of its recovery codes; if you have neither, contact support.`,
  },
  email: {
    title: "E-mail address",
    current: "Your address",
    body: "We send a link to the new address; it takes over when you follow it. Your current address is told, with a way to undo the change.",
    label: "New e-mail address",
    submit: "Send the link",
    /** A change waiting for its link (GET /v1/users/me/email's `pending_change`). */
    pending: "Change pending",
    /** Followed by the link's expiry, kept on one line, and a full stop. */
    pendingUntil: "The link we sent there is valid until",
    pendingNote: "Not you, or a typo? Cancel it, and the link stops working.",
    cancel: "Cancel the change",
  },
  confirmEmail: CONFIRM_EMAIL_TEXT,
  password: {
    title: "Change password",
    body: "Other browsers signed in to your account are signed out; this one stays signed in. API keys keep working.",
    current: "Current password",
    next: "New password",
    confirm: "Confirm new password",
    submit: "Change password",
    done: "Your password was changed.",
  },
  sessions: {
    title: "Sign out everywhere",
    body: "Ends every session of your account, in every browser, this one included. API keys keep working: revoke them on the API keys page.",
    action: "Sign out everywhere",
    confirmTitle: "Sign out everywhere?",
    confirmBody: "Every browser signed in to your account is signed out, this one too.",
    keep: "Stay signed in",
    done: "Signed out everywhere.",
  },
  data: {
    title: "Your data",
    body: "Download everything we hold about your account as a JSON file: your details, plan, credits and every change to them (the ledger, with any dispute), invoices, API keys (never the keys themselves), security events and every charge.",
    download: "Download my data",
    deleteTitle: "Delete account",
    deleteBody:
      "Deleting your account ends your plan now, without a refund, revokes your API keys, loses your remaining credits and erases your personal data, except what the law and our security log keep: invoices stay on record for 10 years, as the law requires, and the security log's entries about you for 13 months to 10 years. You leave your organisations; one you are the only member of is deleted, with its plan and credits. An account registered again with your address does not get the free credits a second time.",
    /** On the page only, where "What our security log keeps" follows; the dialog has no such part. */
    seeLogBelow: "See what our security log keeps below.",
    deleteAction: "Delete account…",
    confirmTitle: "Delete your account?",
    confirmLabel: (username: string) => `Type your username, ${username}, to confirm`,
    keep: "Keep my account",
    confirm: "Delete account",
    deleted: "Your account was deleted.",
    // DELETE /v1/users/me's 409: each organisation named is a link to its settings.
    teamsFirst:
      "You are the last owner of these organisations, and they have other members. Make another member their owner, or delete the organisation, in its settings; then delete your account.",
    unnamedTeam: "Unnamed organisation",
  },
  events: {
    title: "Recent security events",
    empty: "Nothing yet.",
    loading: "Loading security events…",
    loadFailed: "The security events could not be loaded. Reload the page to try again.",
    when: "When",
    // Each time is the browser's own clock; /profile's are Berlin's, and say so, as this does.
    zoneNote: "Times are in your local time.",
    what: "Event",
    where: "Address",
    browser: "Browser",
    unknown: "Unknown",
    // Only the latest few wrong passwords are listed: anyone who knows the username can add them.
    wrongPasswordsNotListed: (n: number) =>
      `${n} earlier failed sign-in${n === 1 ? "" : "s"} with a wrong password ${n === 1 ? "is" : "are"} not listed.`,
  },
} as const;

/** How the security page names each audited event of the account. */
export const SECURITY_EVENT_NAMES: Record<string, string> = {
  "login.succeeded": "Signed in",
  "login.failed": "Failed sign-in",
  "login.throttled": "Sign-ins paused after failures",
  "session.logout": "Signed out",
  "session.logout_all": "Signed out everywhere",
  "session.reauth": "Password confirmed",
  "password.reset": "Password reset",
  "mfa.enabled": "Two-factor authentication turned on",
  "mfa.disabled": "Two-factor authentication turned off",
  "mfa.disable_failed": "Wrong code given to turn two-factor authentication off",
  "mfa.recovery_code_used": "Recovery code used",
  "mfa.recovery_codes_renewed": "New recovery codes made",
  "mfa.recovery_codes_renew_failed": "Wrong code given to make new recovery codes",
  "passkey.added": "Passkey added",
  "passkey.removed": "Passkey removed",
  "password.changed": "Password changed",
  "email.change_requested": "E-mail change asked for",
  "email.changed": "E-mail address changed",
  "email.change_reverted": "E-mail change undone",
  "email.change_cancelled": "E-mail change cancelled",
  "api_key.create": "API key created",
  "api_key.revoke": "API key revoked",
  "account.export": "Account data downloaded",
  "api_keys.revoke_all": "All API keys revoked",
};
