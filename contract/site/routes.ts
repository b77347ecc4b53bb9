// Which prebuilt HTML file answers which URL. Pure functions, shared by the Node server and the
// CDN rewrite file, so that both serve the same page for the same path.

/**
 * Routes whose last segment is a parameter read by the island in the browser
 * (`/verify-email/{token}`, `/reset-password/{token}`, `/payment/{status}`, `/invitations/{token}`).
 * Each is built once,
 * as `/{prefix}/index.html`, and every `/{prefix}/*` URL is answered with it.
 */
export const PARAM_ROUTES = [
  "verify-email",
  "reset-password",
  "payment",
  "confirm-email",
  "invitations",
] as const;

/**
 * Routes with a parameter below a page of their own: `/admin/customers` is the search, and every
 * `/admin/customers/{id}` is answered with the one prebuilt `/admin/customer` page; every
 * `/admin/orgs/{id}` with the `/admin/org` page.
 */
export const NESTED_PARAM_ROUTES = [
  { prefix: "/admin/customers/", page: "/admin/customer" },
  { prefix: "/admin/orgs/", page: "/admin/org" },
] as const;

/** The route key ("/", "/login", "/404") of a built HTML file path relative to dist. */
export function routeKeyForFile(file: string): string {
  const posix = file.replaceAll("\\", "/");
  if (posix === "index.html") return "/";
  if (posix.endsWith("/index.html")) return `/${posix.slice(0, -"/index.html".length)}`;
  return `/${posix.replace(/\.html$/, "")}`;
}

/**
 * The route key that should answer a request path, or undefined when the path cannot name a page
 * (then static assets or the 404 page answer it).
 */
export function routeKeyForPath(pathname: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (!path.startsWith("/") || path.includes("\0") || path.split("/").includes("..")) return undefined;
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const nested = NESTED_PARAM_ROUTES.find(
    (r) => trimmed.startsWith(r.prefix) && trimmed.length > r.prefix.length,
  );
  if (nested) return nested.page;
  const first = trimmed.split("/")[1] ?? "";
  if ((PARAM_ROUTES as readonly string[]).includes(first)) return `/${first}`;
  if (trimmed.endsWith("/index.html")) return trimmed.slice(0, -"/index.html".length) || "/";
  if (trimmed.endsWith(".html")) return trimmed.slice(0, -".html".length);
  return trimmed || "/";
}

/** Netlify/Cloudflare Pages `_redirects` lines (200 = rewrite) for the parameter routes. */
export function cdnRewriteLines(): string[] {
  return [
    ...PARAM_ROUTES.map((p) => `/${p}/*  /${p}/index.html  200`),
    // One segment (":id"), so the parent page itself is not rewritten.
    ...NESTED_PARAM_ROUTES.map((r) => `${r.prefix}:id  ${r.page}/index.html  200`),
  ];
}
