// Turns the CSP that Astro writes into each page's <meta> into the policy we send as a header.
// A <meta> policy cannot carry frame-ancestors (browsers ignore it there), so the header is the
// authoritative copy; the same function feeds the Node server and the CDN `_headers` file.

// Astro writes content="..." with single-quoted keywords inside, so match up to the same quote.
const META_CSP = /<meta\s+http-equiv=(["'])content-security-policy\1\s+content=(["'])(.*?)\2\s*\/?>/is;

/** Directives every page gets on top of what Astro generated. */
export const HEADER_ONLY_DIRECTIVES = ["frame-ancestors 'none'"];

/** The policy for pages that carry no <meta> of their own (for example the 404 fallback). */
export const FALLBACK_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'";

/** Normalises a policy string: one space after each semicolon, no empty directives. */
export function normalisePolicy(policy: string): string[] {
  return policy
    .split(";")
    .map((d) => d.trim().replace(/\s+/g, " "))
    .filter(Boolean);
}

/** The Content-Security-Policy header value for one built HTML page. */
export function cspHeaderForHtml(html: string): string {
  const meta = META_CSP.exec(html)?.[3];
  const directives = normalisePolicy(meta ?? FALLBACK_POLICY);
  const names = new Set(directives.map((d) => d.split(" ")[0]));
  for (const extra of HEADER_ONLY_DIRECTIVES) {
    if (!names.has(extra.split(" ")[0])) directives.push(extra);
  }
  return directives.join("; ");
}
