// Full page navigation: every page is its own static document.

export function navigate(path: string): void {
  window.location.assign(path);
}

/** Replaces the current history entry (guards and redirects: Back must not return here). */
export function redirect(path: string): void {
  window.location.replace(path);
}

/** The query flag /register adds to /login: the new account's verification mail is on its way. */
export const JUST_REGISTERED = "registered";

/** Whether this page was opened right after registering (read after hydration: it is not in the HTML). */
export function openedAfterRegistering(): boolean {
  return new URLSearchParams(window.location.search).has(JUST_REGISTERED);
}
