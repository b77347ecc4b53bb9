// An invoice's link as the billing history and auto top-up's attempts show it: Stripe's hosted
// page in a new tab, the portal's own page in this one.
import type { ReactNode } from "react";
import type { InvoiceLink } from "../../lib/invoice-view.ts";

export function InvoiceAnchor({ link, children }: { link: InvoiceLink; children: ReactNode }) {
  return link.external ? (
    <a href={link.href} className="link" target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ) : (
    <a href={link.href} className="link">
      {children}
    </a>
  );
}
