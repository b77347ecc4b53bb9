// One origin for the portal on a developer's machine. The browser keeps the session per origin,
// and mail links and the checkout's return are built from PORTAL_URL (http://localhost:4321 by
// default). A newcomer who opened http://127.0.0.1:4321 instead would pay and come back signed
// out (issue 31, item 1). So a page asked for under another loopback name of the same port is
// sent to PORTAL_URL's origin. Only loopback names are rewritten: behind a real domain, the proxy
// and DNS decide which names reach us, and a redirect here could loop with theirs.

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/**
 * Where a page request should go instead, or undefined to answer it here: the same path and query
 * on PORTAL_URL's origin, when the request reached this server by another loopback name (or
 * loopback address) on the port PORTAL_URL names.
 */
export function portalOriginRedirect(requestUrl: string, portalUrl: string): string | undefined {
  const asked = new URL(requestUrl);
  const portal = new URL(portalUrl);
  if (asked.origin === portal.origin) return undefined;
  if (!isLoopback(asked.hostname) || !isLoopback(portal.hostname)) return undefined;
  if (asked.port !== portal.port || asked.protocol !== portal.protocol) return undefined;
  return `${portal.origin}${asked.pathname}${asked.search}`;
}
