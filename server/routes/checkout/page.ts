// The local provider's hosted checkout page, /_checkout/{session_id}: the embedded stand-in for
// Stripe Checkout. Server-rendered, no JavaScript; its own policy allows one hashed stylesheet and
// form posts to this origin and the portal (the 303 after paying goes there, and browsers apply
// form-action to a form's redirects). CSRF: the form carries nothing but a card number, and the
// session id in the URL is the capability (143 random bits, known only to the user who created it);
// paying needs no cookie, so a cross-site post can do nothing the attacker could not do directly.
import { createHash } from "node:crypto";
import { Hono } from "hono";
import type { CheckoutSessionRow } from "../../db/schema/index.ts";
import { escapeHtml } from "../../mail/templates.ts";
import type { LocalProvider } from "../../payments/local/local-provider.ts";

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f3f4f6;color:#111827;margin:0;padding:2rem 1rem}
main{max-width:26rem;margin:0 auto;background:#fff;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
h1{font-size:1.25rem;margin:0 0 .25rem}
.amount{font-size:1.75rem;font-weight:700;margin:.5rem 0 1rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
input{width:100%;box-sizing:border-box;font-size:1rem;padding:.6rem;border:1px solid #6b7280;border-radius:.375rem}
button{margin-top:1rem;width:100%;font-size:1rem;padding:.7rem;border:0;border-radius:.375rem;background:#4338ca;color:#fff;font-weight:600;cursor:pointer}
.error{color:#b91c1c;font-weight:600}
.hint{color:#4b5563;font-size:.875rem}
.cancel{display:inline-block;margin-top:1rem;color:#1d4ed8}
`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

export function checkoutCsp(portalOrigin: string): string {
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' ${portalOrigin}; base-uri 'none'; frame-ancestors 'none'`;
}

const amountFormat = (amount: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
    amount / 100,
  );

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function checkoutPage(session: CheckoutSessionRow, productName: string, error?: string): string {
  const what = session.mode === "subscription" ? `${productName}, billed monthly` : productName;
  const errorHtml = error ? `<p class="error" id="card-error" role="alert">${escapeHtml(error)}</p>` : "";
  return page(
    `Pay ${productName}`,
    `<h1>${escapeHtml(what)}</h1>
<p class="amount">${escapeHtml(amountFormat(session.amount, session.currency))}${session.mode === "subscription" ? " per month" : ""}</p>
<form method="post" action="/_checkout/${encodeURIComponent(session.id)}">
<label for="card-number">Card number</label>
<input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" required${error ? ' aria-describedby="card-error" aria-invalid="true"' : ""}>
${errorHtml}
<p class="hint">Test checkout: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 0341 pays now and declines renewals.</p>
<button type="submit">Pay</button>
</form>
<a class="cancel" href="${escapeHtml(session.cancelUrl)}">Cancel</a>`,
  );
}

function messagePage(title: string, text: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}

export function checkoutRoutes(deps: {
  provider: LocalProvider;
  productName: (productId: string) => string;
  portalUrl: string;
  /** Called after a payment: deliver its webhook events. */
  afterPayment: () => void;
}): Hono {
  const app = new Hono();
  const headers = {
    "Content-Security-Policy": checkoutCsp(new URL(deps.portalUrl).origin),
    "Cache-Control": "no-store",
  };
  const notFound = () =>
    messagePage(
      "Checkout not found",
      "This checkout session does not exist. Start again from the plans page.",
    );
  const expired = () =>
    messagePage("Checkout expired", "This checkout session has expired. Start again from the plans page.");
  const paid = () => messagePage("Already paid", "This checkout session has already been paid.");

  app.get("/:id", async (c) => {
    const session = await deps.provider.findSession(c.req.param("id"));
    if (!session) return c.html(notFound(), 404, headers);
    if (session.status === "expired") return c.html(expired(), 410, headers);
    if (session.status === "complete") return c.html(paid(), 409, headers);
    return c.html(checkoutPage(session, deps.productName(session.productId)), 200, headers);
  });

  app.post("/:id", async (c) => {
    let card = "";
    try {
      const form = await c.req.parseBody();
      card = typeof form.card_number === "string" ? form.card_number : "";
    } catch {
      card = "";
    }
    const result = await deps.provider.pay(c.req.param("id"), card.slice(0, 64));
    if (result.ok) {
      deps.afterPayment();
      return c.redirect(result.redirectTo, 303);
    }
    if (result.reason !== "card") {
      if (result.reason === "not_found") return c.html(notFound(), 404, headers);
      if (result.reason === "expired") return c.html(expired(), 410, headers);
      return c.html(paid(), 409, headers);
    }
    // 200 like Stripe's own page: the form is shown again with the message (a 4xx would count as
    // a failed resource load in the browser console, which browser tests treat as an error).
    return c.html(
      checkoutPage(result.session, deps.productName(result.session.productId), result.card.message),
      200,
      headers,
    );
  });
  return app;
}
