// Which mailbox an address delivers to, and whether it belongs to a throwaway-mail service. The
// free credits are granted once per mailbox (ACCOUNT-SECURITY.md): `ann+1@example.com` and
// `a.n.n@gmail.com` reach the same person as `ann@example.com` and `ann@gmail.com`.
import mailchecker from "mailchecker";

/**
 * The canonical form of an address's mailbox: lower case, the `+suffix` of the local part removed,
 * and for Gmail the dots removed and googlemail.com read as gmail.com.
 */
export function canonicalMailbox(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf("@");
  if (at === -1) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf("+");
  if (plus !== -1) local = local.slice(0, plus);
  // Google ignores dots in the local part, and both domains are one mailbox.
  if (domain === "gmail.com" || domain === "googlemail.com") {
    local = local.replaceAll(".", "");
    domain = "gmail.com";
  }
  return `${local}@${domain}`;
}

// mailchecker's kept list of disposable-address domains (thousands of them, updated with each
// release). Its isValid() would also judge the address's format by a regex of its own; the contract's
// zod schema does that, so only the list is used here, with its rule that a subdomain of a listed
// domain is listed too.
const disposable = mailchecker.blacklist();

/** Whether the address's domain, or a domain it is a subdomain of, is a throwaway-mail service. */
export function isDisposableAddress(address: string): boolean {
  const lower = address.trim().toLowerCase();
  let domain = lower.slice(lower.lastIndexOf("@") + 1);
  for (;;) {
    if (disposable.has(domain)) return true;
    const dot = domain.indexOf(".");
    if (dot === -1) return false;
    domain = domain.slice(dot + 1);
  }
}
