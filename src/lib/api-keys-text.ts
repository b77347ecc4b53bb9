// The words of /profile/api-keys, kept out of UI_TEXT (which every page's islands load) so that
// only this page carries them.
import { UI_TEXT } from "./ui-text.ts";

export const API_KEYS_TEXT = {
  ...UI_TEXT.apiKeys,
  title: "API keys",
  /** Also /profile's line about keys. */
  intro:
    "Keys let your programs call the generation API without your password. Each key can expire, be " +
    "limited to some features and a monthly credit budget, and be revoked at any time.",
  /** Also on /profile/usage, where no key has been made yet. */
  create: "Create API key",
  createTitle: "Create API key",
  name: "Name",
  namePlaceholder: "e.g. Production server",
  expiry: "Expires",
  expiryNever: "Never",
  expiryDays: (days: number) => `In ${days} days`,
  limit: "Monthly credit limit (optional)",
  limitHelper: "Counted per calendar month (Berlin time). Leave empty for no limit but your balance.",
  features: "Features",
  allFeatures: "All features",
  someFeatures: "Only these features:",
  cancel: "Cancel",
  creating: "Creating…",
  createdTitle: "Your new API key",
  createdWarning: "Copy it now: it will not be shown again. Store it like a password.",
  done: "I have copied it",
  /** The sample call's copy button, for assistive technology (it shows "Copy"). */
  copyCommand: "Copy the curl command",
  revoke: "Revoke",
  revokeTitle: "Revoke this key?",
  revokeBody: (name: string) => `Programs using "${name}" stop working at once. This cannot be undone.`,
  confirmRevoke: "Yes, revoke",
  keepKey: "Keep key",
  revoked: "API key revoked",
  revokeAll: "Revoke all API keys",
  revokeAllTitle: "Revoke all API keys?",
  /**
   * No count: the call revokes every key the account made in every organisation (ORGANISATIONS.md),
   * while this page lists the chosen organisation's keys, an owner's including other members'. The
   * toast afterwards says how many went.
   */
  revokeAllBody:
    "Every API key you made stops working at once, in every organisation, on every program that " +
    "uses it. This cannot be undone. Do it if a key may have leaked, or after a password reset you " +
    "did not ask for.",
  confirmRevokeAll: "Yes, revoke all",
  revokedAll: (count: number) => (count === 1 ? "1 API key revoked" : `${count} API keys revoked`),
  emptyTitle: "No API keys yet",
  emptyBody:
    "Create a key for each program or server that calls the generation API. If one leaks, revoke it " +
    "without touching the others.",
  loading: "Loading your API keys…",
  loadFailed: "Your API keys could not be loaded.",
  /** A billing member on this page: the role may see usage and billing, but make no keys. */
  notForRole:
    "Your role in this organisation cannot make API keys: its owners, managers and developers do. " +
    "To make keys of your own, switch to your personal account in the account menu.",
  /** Beside it: the organisation's usage, which the role may see. */
  usageLink: "See the organisation's usage",
  /** Beside it too: revoking covers the keys the account made elsewhere (the password-changed mail links here). */
  revokeAllElsewhere:
    "A key may have leaked, or your password was reset without you? Revoke every key you made, in every organisation.",
  retry: "Try again",
  columns: {
    name: "Name",
    key: "Key",
    created: "Created",
    lastUsed: "Last used",
    expires: "Expires",
    usage: "Used this month",
    memberCap: "Member cap this month",
    /** A team organisation's keys: who made each (an owner's and a manager's list holds everyone's). */
    madeBy: "Made by",
  },
  /** The list's heading: a personal account's keys are the user's; a team's list may hold others'. */
  listTitle: (team: boolean) => (team ? "Keys in this organisation" : "Your keys"),
  madeByYou: "You",
  /** A shared key (ORGANISATIONS.md): the organisation's, made by an owner. */
  sharedBy: (name: string) => `${name} (shared key)`,
  /** A key whose maker's account is gone. */
  formerMember: "A former member",
  never: "Never",
  noLimit: "no limit",
  /** A team key without a limit of its own: its maker's cap may still bound it. */
  noKeyLimit: "no key limit",
  expired: "expired",
  restrictedTo: "Only",
  usingTitle: "Using your key",
} as const;
