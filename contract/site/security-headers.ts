// The security headers every answer carries, from the Node server (server/http/fixed-headers.ts)
// and from a CDN (the `_headers` file src/integrations/cdn-files.ts writes), so both send the same.

/** The policy of every answer that is not a page (JSON, assets): it allows nothing. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
};
