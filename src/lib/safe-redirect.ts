// Where a user may be sent after login: only a path of this site. `originalPath` sits in
// localStorage, which any script or an old page version may have written, so it is never trusted
// as a URL: a scheme, a protocol-relative `//host` or a backslash trick (`/\host`, which browsers
// read as `//host`) would turn the login page into an open redirect.

/** `value` when it is a same-site path such as "/plans?x=1", otherwise null. */
export function safeRedirectPath(value: string | null | undefined): string | null {
  if (typeof value !== "string") return null;
  if (!value.startsWith("/")) return null;
  const second = value.charAt(1);
  if (second === "/" || second === "\\") return null;
  // Control characters (tabs, newlines) are stripped by URL parsers and could hide a "//".
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  if (value.includes("\\")) return null;
  return value;
}

/** Where login sends the user: the saved path when it is safe, else the home page. */
export function postLoginPath(saved: string | null | undefined): string {
  return safeRedirectPath(saved) ?? "/";
}

/**
 * Where a checkout call may send the browser: the hosted checkout's http(s) address, as the URL
 * parser reads it (which also strips the tabs and newlines that could hide a `javascript:`), or
 * null. The answer comes from the API, or from whatever sits between the API and the browser, so a
 * `javascript:` or `data:` URL must not reach `location.assign`; a page served over https never
 * sends its visitor to a plain-http checkout (a card form without TLS).
 */
export function safeCheckoutUrl(value: unknown, pageUrl: string): string | null {
  if (typeof value !== "string" || value === "") return null;
  let url: URL;
  try {
    url = new URL(value, pageUrl);
  } catch {
    return null;
  }
  if (url.protocol === "https:") return url.href;
  if (url.protocol === "http:" && new URL(pageUrl).protocol === "http:") return url.href;
  return null;
}
