// Who an organisation's billing mails go to, as a plain rule (billing/billing-contacts.ts reads the
// organisation and its members, then asks here): the billing e-mail first, then the owners and
// billing members, each address once.
/** An owner or billing member, mailed about billing. */
export interface BillingMember {
  email: string;
  username: string;
}

/**
 * Where an organisation's billing mails go: its billing e-mail first (when set), then its owners and
 * billing members; each address once, whatever its case. The billing e-mail is greeted by the
 * organisation's name (a personal organisation's by its user's, who is its owner).
 */
export function billingRecipients(
  billingEmail: string | null,
  greeting: string,
  members: readonly BillingMember[],
): BillingMember[] {
  const seen = new Set<string>();
  const out: BillingMember[] = [];
  const add = (email: string, username: string) => {
    const key = email.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ email, username });
  };
  if (billingEmail)
    add(billingEmail, members.find((m) => sameAddress(m.email, billingEmail))?.username ?? greeting);
  for (const m of members) add(m.email, m.username);
  return out;
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
