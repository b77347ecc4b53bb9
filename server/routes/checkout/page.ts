// The local provider's hosted checkout page, /_checkout/{session_id}: the embedded stand-in for
// Stripe Checkout with Stripe Tax. Two steps: the billing details (name, country, optional VAT ID),
// which decide the VAT, then the total (net, VAT with its rate, total) and the card. Server-rendered,
// no JavaScript; its own policy allows one hashed stylesheet and
// form posts to this origin and the portal (the 303 after paying goes there, and browsers apply
// form-action to a form's redirects). CSRF: the form carries nothing but a card number, and the
// session id in the URL is the capability (143 random bits, known only to the user who created it);
// paying needs no cookie, so a cross-site post can do nothing the attacker could not do directly.
import { type Context, type ErrorHandler, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { BILLING_DETAILS_MESSAGES } from "../../../contract/billing-details-messages.ts";
import { countryOptions } from "../../../contract/countries.ts";
import { countryName } from "../../../contract/country-name.ts";
import { formatMoney } from "../../../contract/money.ts";
import type { CheckoutSessionRow } from "../../db/schema/index.ts";
import { invoiceNote } from "../../domain/vat.ts";
import { escapeHtml } from "../../mail/templates.ts";
import type { BuyerDetailsErrors, BuyerDetailsForm } from "../../payments/local/buyer-details.ts";
import type { CardPage } from "../../payments/local/card-update.ts";
import type { LocalProvider } from "../../payments/local/local-provider.ts";
import { sessionHasDetails } from "../../payments/local/stripe-objects.ts";
import { invoicePageRoutes } from "./invoice-page.ts";
import { checkoutCsp, messagePage, page, readForm, text, vatLabelOf } from "./layout.ts";
import { cardSetupRoutes } from "./setup-page.ts";

// The policy is the layout's; the browser tests read it from here.
export { checkoutCsp };

const sessionPath = (session: CheckoutSessionRow) => `/_checkout/${encodeURIComponent(session.id)}`;

function heading(session: CheckoutSessionRow, productName: string): string {
  const what = session.mode === "subscription" ? `${productName}, billed monthly` : productName;
  return `<h1>${escapeHtml(what)}</h1>
<p class="amount">${escapeHtml(formatMoney(session.amount, session.currency))}${session.mode === "subscription" ? " per month" : ""} <span class="hint">excl. VAT</span></p>`;
}

/** A labelled field with its error under it, tied together for screen readers. */
function field(id: string, label: string, control: (aria: string) => string, error: string | undefined) {
  const aria = error ? ` aria-describedby="${id}-error" aria-invalid="true"` : "";
  const errorHtml = error ? `<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : "";
  return `<label for="${id}">${escapeHtml(label)}</label>\n${control(aria)}\n${errorHtml}`;
}

/** Step 1: who is buying, so the VAT can be decided before the total is shown. */
export function detailsPage(
  session: CheckoutSessionRow,
  productName: string,
  sellerCountry: string,
  form: BuyerDetailsForm,
  errors: BuyerDetailsErrors = {},
): string {
  const options = countryOptions()
    .map(
      (c) =>
        `<option value="${c.code}"${c.code === form.country ? " selected" : ""}>${escapeHtml(c.name)}</option>`,
    )
    .join("");
  const summary =
    Object.keys(errors).length > 0 ? `<p class="error" role="alert">${escapeHtml(DETAILS_SUMMARY)}</p>` : "";
  return page(
    `Pay ${productName}`,
    `${heading(session, productName)}
<h2>Billing details</h2>
${summary}
<form method="post" action="${sessionPath(session)}/details" novalidate>
${field("buyer-name", "Name on the invoice", (aria) => `<input id="buyer-name" name="name" autocomplete="name" maxlength="200" required value="${escapeHtml(form.name)}"${aria}>`, errors.name)}
${field("buyer-country", "Country", (aria) => `<select id="buyer-country" name="country" autocomplete="country" required${aria}><option value="">${escapeHtml(BILLING_DETAILS_MESSAGES.countryPlaceholder)}</option>${options}</select>`, errors.country)}
${field("buyer-vat-id", "VAT ID (optional, for businesses)", (aria) => `<input id="buyer-vat-id" name="vat_id" maxlength="20" autocapitalize="characters" value="${escapeHtml(form.vatId)}"${aria}>`, errors.vatId)}
<p class="hint">The seller is in ${escapeHtml(countryName(sellerCountry))}. VAT is added for buyers in the EU; a business elsewhere in the EU with a VAT ID pays none (reverse charge).</p>
<button type="submit">Continue</button>
</form>
<a class="cancel" href="${escapeHtml(session.cancelUrl)}">Cancel</a>`,
  );
}

export const DETAILS_SUMMARY = "Check the billing details marked below.";
export const DETAILS_FIRST = "Enter your billing details before paying: the total depends on them.";

const vatLabel = (session: CheckoutSessionRow) =>
  vatLabelOf(session.taxTreatment, session.taxRateBasisPoints);

/** Step 2: the total with its VAT, then the card. */
export function checkoutPage(session: CheckoutSessionRow, productName: string, error?: string): string {
  const money = (amount: number) => escapeHtml(formatMoney(amount, session.currency));
  const tax = session.amountTax ?? 0;
  const note = session.taxTreatment ? invoiceNote(session.taxTreatment) : null;
  const country = session.buyerCountry ? countryName(session.buyerCountry) : "";
  const errorHtml = error ? `<p class="error" id="card-error" role="alert">${escapeHtml(error)}</p>` : "";
  return page(
    `Pay ${productName}`,
    `${heading(session, productName)}
<h2>Billing details</h2>
<div class="details"><p class="note" id="buyer-summary">${escapeHtml(session.buyerName ?? "")}, ${escapeHtml(country)}${session.buyerVatId ? `, VAT ID ${escapeHtml(session.buyerVatId)}` : ""}</p>
<a href="${sessionPath(session)}?edit=details">Change</a></div>
<table aria-label="Order summary">
<tr><th scope="row">Net</th><td>${money(session.amount)}</td></tr>
<tr><th scope="row">${escapeHtml(vatLabel(session))}</th><td>${money(tax)}</td></tr>
<tr class="total"><th scope="row">Total${session.mode === "subscription" ? " per month" : ""}</th><td>${money(session.amount + tax)}</td></tr>
</table>
${note ? `<p class="note">${escapeHtml(note)}</p>` : ""}
<form method="post" action="${sessionPath(session)}">
<label for="card-number">Card number</label>
<input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" required${error ? ' aria-describedby="card-error" aria-invalid="true"' : ""}>
${errorHtml}
<p class="hint">Test checkout: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, ${session.mode === "payment" ? "4000 0000 0000 0259 pays, then the payment is disputed" : "4000 0000 0000 0341 pays now and declines renewals"}.</p>
<button type="submit">Pay</button>
</form>
<a class="cancel" href="${escapeHtml(session.cancelUrl)}">Cancel</a>`,
  );
}

/** The stand-in for Stripe's Billing Portal: give a new card for the subscription. */
export function cardPage(
  card: Extract<CardPage, { ok: true }>,
  productName: string | null,
  error?: string,
): string {
  const sub = card.subscription;
  const intro = !sub
    ? "You have no subscription at the moment, so there is no card to change."
    : sub.status === "past_due"
      ? `The last payment for ${productName ?? "your plan"} failed. Saving a new card pays it now and keeps your plan.`
      : `The card for ${productName ?? "your plan"} is charged at each renewal.`;
  const errorHtml = error ? `<p class="error" id="card-error" role="alert">${escapeHtml(error)}</p>` : "";
  const form = sub
    ? `<form method="post" action="/_checkout/billing/${encodeURIComponent(card.session.id)}">
<label for="card-number">Card number</label>
<input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" required${error ? ' aria-describedby="card-error" aria-invalid="true"' : ""}>
${errorHtml}
<p class="hint">Test checkout: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 0341 is accepted and declines renewals.</p>
<button type="submit">Save card</button>
</form>`
    : "";
  return page(
    "Update payment method",
    `<h1>Update payment method</h1>
<p id="card-intro">${escapeHtml(intro)}</p>
${form}
<a class="cancel" href="${escapeHtml(card.session.returnUrl)}">Back</a>`,
  );
}

const EMPTY_FORM: BuyerDetailsForm = { name: "", country: "", vatId: "" };

const formOfSession = (s: CheckoutSessionRow): BuyerDetailsForm | undefined =>
  s.buyerCountry
    ? { name: s.buyerName ?? "", country: s.buyerCountry, vatId: s.buyerVatId ?? "" }
    : undefined;

/** More than any checkout form's fields (name, country, VAT id, card number, expiry, CVC). */
const MAX_FORM_BYTES = 16 * 1024;

/** The checkout pages' own headers: their CSP (a form that posts back here) and no caching. */
const pageHeaders = (portalUrl: string) => ({
  "Content-Security-Policy": checkoutCsp(new URL(portalUrl).origin),
  "Cache-Control": "no-store",
});

export interface CheckoutDeps {
  provider: LocalProvider;
  productName: (productId: string) => string;
  portalUrl: string;
  /** The seller's country, named on the details step. */
  sellerCountry: string;
  /** The seller's name, on the card-setup and invoice pages. */
  sellerName: string;
  /** Called after a payment: deliver its webhook events. */
  afterPayment: () => void;
}

/**
 * The local checkout as an application of its own, answering every path under /_checkout: the app
 * hands it those requests whole (app.ts). Its routes cannot share the app's router: a session id
 * and a page name in the same place (/_checkout/{id} beside /_checkout/setup/{id}) are more than
 * one regular expression can tell apart, and with them Hono's router fell back for every route of
 * the API to a trie searched on each request (issue 35). A path it has no page for answers its own
 * "not found" page.
 */
export function checkoutApplication(deps: CheckoutDeps, onError: ErrorHandler): Hono {
  const app = new Hono();
  const headers = pageHeaders(deps.portalUrl);
  // Its forms carry a few short fields: nobody may make it parse megabytes.
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: (c) =>
        c.html(
          messagePage("Form too large", "This form sent more than a checkout form holds. Start again."),
          413,
          headers,
        ),
    }),
  );
  app.route("/_checkout", checkoutRoutes(deps, headers));
  app.notFound((c) =>
    c.html(
      messagePage("Page not found", "This checkout page does not exist. Start again from the plans page."),
      404,
      headers,
    ),
  );
  app.onError(onError);
  return app;
}

function checkoutRoutes(deps: CheckoutDeps, headers: Readonly<Record<string, string>>): Hono {
  const app = new Hono();
  // Auto top-up's pages (their own modules), before the session routes below.
  const { provider, sellerName, portalUrl, afterPayment } = deps;
  app.route("/", cardSetupRoutes({ provider, sellerName, headers, afterSave: afterPayment }));
  app.route("/", invoicePageRoutes({ provider, sellerName, portalUrl, headers, afterPayment }));
  const notFound = () =>
    messagePage(
      "Checkout not found",
      "This checkout session does not exist. Start again from the plans page.",
    );
  const expired = () =>
    messagePage("Checkout expired", "This checkout session has expired. Start again from the plans page.");
  const paid = () => messagePage("Already paid", "This checkout session has already been paid.");
  const unpayable = (c: Context, reason: "not_found" | "expired" | "already_paid") => {
    if (reason === "not_found") return c.html(notFound(), 404, headers);
    if (reason === "expired") return c.html(expired(), 410, headers);
    return c.html(paid(), 409, headers);
  };
  const details = (session: CheckoutSessionRow, form: BuyerDetailsForm, errors?: BuyerDetailsErrors) =>
    detailsPage(session, deps.productName(session.productId), deps.sellerCountry, form, errors);

  // The card page (the local stand-in for Stripe's Billing Portal), before the session routes.
  const cardPageGone = (c: Context, reason: "not_found" | "expired") =>
    reason === "not_found"
      ? c.html(
          messagePage("Page not found", "This link does not exist. Start again from your billing page."),
          404,
          headers,
        )
      : c.html(
          messagePage(
            "Link expired",
            "This link has expired or was used. Start again from your billing page.",
          ),
          410,
          headers,
        );
  const planName = (p: Extract<CardPage, { ok: true }>) =>
    p.subscription ? deps.productName(p.subscription.productId) : null;

  app.get("/billing/:id", async (c) => {
    const found = await deps.provider.findCardPage(c.req.param("id"));
    if (!found.ok) return cardPageGone(c, found.reason);
    return c.html(cardPage(found, planName(found)), 200, headers);
  });

  app.post("/billing/:id", async (c) => {
    const card = text(await readForm(c), "card_number", 64);
    const result = await deps.provider.updateCard(c.req.param("id"), card);
    if (result.ok) {
      deps.afterPayment();
      return c.redirect(result.redirectTo, 303);
    }
    if (result.reason !== "card") return cardPageGone(c, result.reason);
    return c.html(cardPage(result.page, planName(result.page), result.card.message), 200, headers);
  });

  app.get("/:id", async (c) => {
    const session = await deps.provider.findSession(c.req.param("id"));
    if (!session) return c.html(notFound(), 404, headers);
    if (session.status === "expired") return c.html(expired(), 410, headers);
    if (session.status === "complete") return c.html(paid(), 409, headers);
    if (!sessionHasDetails(session) || c.req.query("edit") === "details") {
      const form =
        formOfSession(session) ?? (await deps.provider.detailsOnFile(session.userId)) ?? EMPTY_FORM;
      return c.html(details(session, form), 200, headers);
    }
    return c.html(checkoutPage(session, deps.productName(session.productId)), 200, headers);
  });

  app.post("/:id/details", async (c) => {
    const body = await readForm(c);
    const form = {
      name: text(body, "name", 300),
      country: text(body, "country", 8),
      vatId: text(body, "vat_id", 40),
    };
    const result = await deps.provider.setBuyerDetails(c.req.param("id"), form);
    if (result.ok) return c.redirect(`/_checkout/${encodeURIComponent(c.req.param("id"))}`, 303);
    if (result.reason !== "invalid") return unpayable(c, result.reason);
    // 200 with the errors next to the fields, like the card step (see below).
    return c.html(details(result.session, form, result.errors), 200, headers);
  });

  app.post("/:id", async (c) => {
    const card = text(await readForm(c), "card_number", 64);
    const result = await deps.provider.pay(c.req.param("id"), card);
    if (result.ok) {
      deps.afterPayment();
      return c.redirect(result.redirectTo, 303);
    }
    if (result.reason === "details_missing") {
      const form = (await deps.provider.detailsOnFile(result.session.userId)) ?? EMPTY_FORM;
      return c.html(details(result.session, form, { name: DETAILS_FIRST }), 200, headers);
    }
    if (result.reason !== "card") return unpayable(c, result.reason);
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
