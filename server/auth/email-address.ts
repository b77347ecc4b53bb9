// How an e-mail address is stored: trimmed, with the domain lower-cased (domains are case-insensitive;
// the local part belongs to the mail server, so its case is kept as typed). Uniqueness and look-ups
// compare the whole address case-insensitively (see the users_email_lower_key index).
export function normaliseEmail(address: string): string {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf("@");
  if (at < 0) return trimmed;
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}
