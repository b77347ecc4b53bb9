// What every page of the local checkout shares (the checkout, the card change, the card setup and
// the invoice payment): one hashed stylesheet and the policy that allows only it, the document
// around a page's body, a message page, and reading the posted form.
import { createHash } from "node:crypto";
import type { Context } from "hono";
import { formatRate, type TaxTreatment } from "../../domain/vat.ts";
import { escapeHtml } from "../../mail/templates.ts";

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f3f4f6;color:#111827;margin:0;padding:2rem 1rem}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
h1{font-size:1.25rem;margin:0 0 .25rem}
h2{font-size:1rem;margin:1.25rem 0 .5rem}
.amount{font-size:1.75rem;font-weight:700;margin:.5rem 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{width:100%;box-sizing:border-box;font-size:1rem;padding:.6rem;border:1px solid #6b7280;border-radius:.375rem;background:#fff;color:#111827}
button{margin-top:1rem;width:100%;font-size:1rem;padding:.7rem;border:0;border-radius:.375rem;background:#4338ca;color:#fff;font-weight:600;cursor:pointer}
table{width:100%;border-collapse:collapse;margin:.5rem 0}
th{text-align:left;font-weight:400;padding:.35rem 0}
td{text-align:right;padding:.35rem 0;font-variant-numeric:tabular-nums}
tr.total th,tr.total td{font-weight:700;border-top:1px solid #d1d5db}
.error{color:#b91c1c;font-weight:600;margin:.25rem 0 0}
.hint{color:#4b5563;font-size:.875rem}
.note{color:#374151;font-size:.875rem;margin:.25rem 0}
.details{display:flex;justify-content:space-between;gap:1rem;align-items:baseline}
.cancel{display:inline-block;margin-top:1rem;color:#1d4ed8}
button.secondary{background:#fff;color:#4338ca;border:1px solid #4338ca}
`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

export function checkoutCsp(portalOrigin: string): string {
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' ${portalOrigin}; base-uri 'none'; frame-ancestors 'none'`;
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function messagePage(title: string, text: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}

export const text = (form: Record<string, unknown>, key: string, max: number) => {
  const value = form[key];
  return typeof value === "string" ? value.slice(0, max) : "";
};

/** The posted form, or nothing when it cannot be read (each field then reads as empty). */
export async function readForm(c: Context): Promise<Record<string, unknown>> {
  try {
    return await c.req.parseBody();
  } catch {
    return {};
  }
}

/** "VAT (19 %)", or why there is none. */
export function vatLabelOf(treatment: TaxTreatment | null, rateBasisPoints: number | null): string {
  switch (treatment) {
    case "reverse_charge":
      return "VAT (0 %, reverse charge)";
    case "outside_eu":
      return "VAT (0 %, outside the EU)";
    default:
      return `VAT (${formatRate(rateBasisPoints ?? 0)})`;
  }
}
