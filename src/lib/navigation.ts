// Full page navigation: every page is its own static document.

export function navigate(path: string): void {
  window.location.assign(path);
}

/** Replaces the current history entry (guards and redirects: Back must not return here). */
export function redirect(path: string): void {
  window.location.replace(path);
}
