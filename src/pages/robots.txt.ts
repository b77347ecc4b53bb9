// robots.txt from the configured site URL (astro.config.mjs `site`), so it names the right sitemap.
import type { APIRoute } from "astro";
import { robotsTxt } from "../lib/robots.ts";

export const GET: APIRoute = ({ site }) =>
  new Response(robotsTxt(site ?? "http://localhost:4321"), {
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
