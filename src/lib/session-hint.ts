// What a page knows before any island runs: whether this browser holds a token (the spec's
// `x-access-token`). The account islands hydrate after the first paint (decision 008), and until
// they had loaded the user a signed-in customer saw the visitor's "Log In" and "Register" for one
// to four seconds on a busy machine (QA, 2026-12-01). BaseLayout runs SESSION_HINT_SCRIPT in
// <head>, before the first paint: with a token stored it marks <html data-session>, and the
// visitor's links (the top bar's own HTML, and home's Log In button while its island does not know
// the session) stay hidden, their room kept, until the account island knows (global.css). A
// visitor (no token), a browser without JavaScript or storage, and a CSP that refused the script
// all see the links at once, as before. The script's hash is in the CSP (astro.config.mjs).
// /login and /reset-password leave it out: their visitors are who they are for, and their
// JavaScript budget (82,000 bytes gzip) has no room for it.

import { STORAGE_KEYS } from "./auth-storage.ts";

/** The attribute on <html> that says a token is stored (set by the script). */
export const SESSION_HINT_ATTRIBUTE = "data-session";

/** Runs in <head> as an inline classic script: short, as every page carries it. */
export const SESSION_HINT_SCRIPT = `try{localStorage.getItem("${STORAGE_KEYS.token}")&&document.documentElement.setAttribute("${SESSION_HINT_ATTRIBUTE}","")}catch(e){}`;
