// robots.txt: everything public is crawlable except the pages that only make sense with a token,
// a session or a payment (the same pages the sitemap leaves out).

export const PRIVATE_PATHS = [
  "/profile",
  "/payment",
  "/verify-email",
  "/reset-password",
  "/admin",
  "/org",
  "/invitations",
] as const;

/** The robots.txt text for a site whose public origin is `site`, e.g. https://portal.example.com. */
export function robotsTxt(site: URL | string): string {
  const sitemap = new URL("/sitemap-index.xml", site).href;
  return ["User-agent: *", ...PRIVATE_PATHS.map((p) => `Disallow: ${p}`), "", `Sitemap: ${sitemap}`, ""].join(
    "\n",
  );
}
