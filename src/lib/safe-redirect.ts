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
