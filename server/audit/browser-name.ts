// A User-Agent as a person reads it ("Chrome 156 on Linux"), for the security events of
// /profile/security. ua-parser-js (MIT, v1) keeps the list of browsers and systems current; the
// parsing runs here rather than in the page, so the browser carries none of it.
import { UAParser } from "ua-parser-js";

export function browserName(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os } = new UAParser(userAgent).getResult();
  if (!browser.name) return null;
  const name = browser.major ? `${browser.name} ${browser.major}` : browser.name;
  return os.name ? `${name} on ${os.name}` : name;
}
