// The spec's localStorage keys (section 3) and the only code that touches them. Reads tolerate a
// browser that refuses storage (private mode, disabled cookies): the visitor is then logged out.

export const STORAGE_KEYS = {
  token: "x-access-token",
  isAuthenticated: "isAuthenticated",
  originalPath: "originalPath",
  /** The organisation the portal acts on (ORGANISATIONS.md "Pages"); absent means personal. */
  organization: "x-organization",
} as const;

function storage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

export function readStoredToken(): string | null {
  return storage()?.getItem(STORAGE_KEYS.token) ?? null;
}

/** Stores the token and the spec's flag (the string 'true'). */
export function storeSession(token: string): void {
  const s = storage();
  s?.setItem(STORAGE_KEYS.token, token);
  s?.setItem(STORAGE_KEYS.isAuthenticated, "true");
}

export function clearSession(): void {
  const s = storage();
  s?.removeItem(STORAGE_KEYS.token);
  s?.removeItem(STORAGE_KEYS.isAuthenticated);
}

/** The organisation this page acts on: read once per page load, as the contract asks (see below). */
let pageOrganization: string | null | undefined;

/**
 * The chosen organisation's id, or null for the personal one. Read from storage once per page:
 * another tab's choice reloads this page (stores/auth.ts) instead of changing its calls midway.
 */
export function chosenOrganization(): string | null {
  if (pageOrganization === undefined)
    pageOrganization = storage()?.getItem(STORAGE_KEYS.organization) ?? null;
  return pageOrganization;
}

/** Reads the choice from storage again at the next call, as a new page would; tests only. */
export function rereadOrganizationForTests(): void {
  pageOrganization = undefined;
}

/**
 * Whether a storage event says another tab chose an organisation other than the one this page acts
 * on, so that the page must load again. A choice equal to this page's is not: a browser may deliver
 * the previous page's own change (leaving an organisation, then opening /profile) to the page that
 * followed it in the same tab, and a reload there would lose that page's toast and typing.
 */
export function choiceChangedElsewhere(event: Pick<StorageEvent, "key" | "newValue">): boolean {
  return event.key === STORAGE_KEYS.organization && event.newValue !== chosenOrganization();
}

/** Keeps `id` as the chosen organisation, or forgets the choice (null: personal). */
export function chooseOrganization(id: string | null): void {
  pageOrganization = id;
  const s = storage();
  if (id) s?.setItem(STORAGE_KEYS.organization, id);
  else s?.removeItem(STORAGE_KEYS.organization);
}

/**
 * When the path was saved (Unix ms), beside the spec's key. A refused page is followed by its login
 * within minutes; on a shared computer a path left behind would otherwise take the next person's
 * login, days later, to a page of somebody else's errand (an invitation, an organisation's invoice).
 */
const ORIGINAL_PATH_SAVED_AT = "originalPathSavedAt";

/** How long a saved path is followed: long enough to register, verify the address and sign in. */
export const ORIGINAL_PATH_LIFETIME_MS = 60 * 60 * 1000;

export function saveOriginalPath(path: string, now = Date.now()): void {
  const s = storage();
  s?.setItem(STORAGE_KEYS.originalPath, path);
  s?.setItem(ORIGINAL_PATH_SAVED_AT, String(now));
}

/**
 * Reads and forgets the saved path: it is meant for one login only, within its lifetime. A path
 * without its time (the spec's key set on its own) is followed, as the spec says.
 */
export function takeOriginalPath(now = Date.now()): string | null {
  const s = storage();
  const value = s?.getItem(STORAGE_KEYS.originalPath) ?? null;
  const savedAt = s?.getItem(ORIGINAL_PATH_SAVED_AT) ?? null;
  s?.removeItem(STORAGE_KEYS.originalPath);
  s?.removeItem(ORIGINAL_PATH_SAVED_AT);
  if (savedAt !== null) {
    const age = now - Number(savedAt);
    // A time ahead of the clock (the clock set back, a value set by hand) is not a fresh path.
    if (!(age >= 0 && age <= ORIGINAL_PATH_LIFETIME_MS)) return null;
  }
  return value;
}

/**
 * Why the session just ended, for the page the visitor is sent to ("Account disabled. Contact
 * support."). Read by that page's session start, not by the toast area: the page that ended the
 * session may still hydrate its own toast area before it unloads, and would take a flash toast away.
 */
const SIGNED_OUT_REASON = "portal-signed-out-reason";

export function keepSignedOutReason(reason: string): void {
  try {
    sessionStorage.setItem(SIGNED_OUT_REASON, reason);
  } catch {
    // no storage: the next page cannot say why; the visitor is signed out all the same
  }
}

export function takeSignedOutReason(): string | null {
  try {
    const reason = sessionStorage.getItem(SIGNED_OUT_REASON);
    sessionStorage.removeItem(SIGNED_OUT_REASON);
    return reason;
  } catch {
    return null;
  }
}
