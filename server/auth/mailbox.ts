// Which mailbox an address delivers to, and whether it may be an account's at all: not from a
// throwaway-mail service, not in a top-level domain that never delivers mail. The
// free credits are granted once per mailbox (ACCOUNT-SECURITY.md): `ann+1@example.com` and
// `a.n.n@gmail.com` reach the same person as `ann@example.com` and `ann@gmail.com`.
import mailchecker from "mailchecker";
import { VALIDATION } from "../../contract/messages.ts";

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

/**
 * Top-level domains reserved never to deliver mail: `.invalid` (RFC 2606) and `.localhost` (RFC
 * 6761, the sender's own host). No person reads mail there. The deleted accounts' pseudonymous
 * addresses live under `.invalid` (accounts/account-deletion.ts), so an address there could only
 * stand in another account's way. `.test` and `.example` (RFC 2606 too) deliver no mail either, but a
 * development or shared test server, whose mail lands in its outbox, may use them (the tests use
 * acme.test), so they stay allowed.
 */
const RESERVED_TLDS: ReadonlySet<string> = new Set(["invalid", "localhost"]);

/** Whether the address's top-level domain is one that never delivers mail. */
export function isReservedAddress(address: string): boolean {
  const lower = address.trim().toLowerCase();
  const domain = lower.slice(lower.lastIndexOf("@") + 1);
  return RESERVED_TLDS.has(domain.slice(domain.lastIndexOf(".") + 1));
}

/**
 * Why an address may not become an account's or be invited, as the 422's message; null when it
 * may. The one rule that registration, an address change and an invitation apply.
 */
export function addressRefusal(address: string): string | null {
  if (isReservedAddress(address)) return VALIDATION.emailReserved;
  if (isDisposableAddress(address)) return VALIDATION.emailDisposable;
  return null;
}
