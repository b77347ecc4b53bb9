// The local checkout's card-setup page, /_checkout/setup/{id}: the stand-in for Stripe Checkout in
// setup mode (AUTO-TOP-UP.md). It names the seller, shows the consent to later charges, takes a
// test card and saves it; the cards that ask for 3-D Secure get a simulated authentication step
// first. The same policy, markup and CSRF reasoning as the checkout page (page.ts): the session id
// in the URL is the capability, and the form carries nothing but a test card number.
import { type Context, Hono } from "hono";
import type { CardSetupSessionRow } from "../../db/schema/index.ts";
import { escapeHtml } from "../../mail/templates.ts";
import type { SaveCardResult } from "../../payments/local/card-setup.ts";
import { SETUP_CARDS_HINT } from "../../payments/local/cards.ts";
import type { LocalProvider } from "../../payments/local/local-provider.ts";
import { messagePage, page, readForm, text } from "./layout.ts";

export const SETUP_TEXT = {
  title: "Save a card",
  heading: "Save a card for automatic top-ups",
  save: "Save",
  authTitle: "Authenticate your card",
  authIntro: (last4: string, seller: string) =>
    `Your bank asks you to confirm that ${seller} may charge the card ending ${last4} later. This test page stands in for your bank's 3-D Secure page.`,
  complete: "Complete authentication",
  fail: "Fail authentication",
  authFailed: "We could not authenticate your card. Try again, or use another card.",
  notFound: ["Page not found", "This link does not exist. Start again from Billing."],
  expired: ["Link expired", "This page has expired. Start again from Billing to save a card."],
  complete409: ["Card already saved", "A card was already saved on this page. You can close it."],
} as const;

const setupPath = (s: CardSetupSessionRow) => `/_checkout/setup/${encodeURIComponent(s.id)}`;

const sellerLine = (seller: string) => `<p class="hint" id="seller">${escapeHtml(seller)}</p>`;

/** The card form, with the consent to later charges above it and an error beside the field. */
export function setupPage(session: CardSetupSessionRow, seller: string, error?: string): string {
  const errorHtml = error ? `<p class="error" id="card-error" role="alert">${escapeHtml(error)}</p>` : "";
  const aria = error
    ? ' aria-describedby="card-error consent" aria-invalid="true"'
    : ' aria-describedby="consent"';
  return page(
    SETUP_TEXT.title,
    `${sellerLine(seller)}
<h1>${escapeHtml(SETUP_TEXT.heading)}</h1>
<p class="note" id="consent">${escapeHtml(session.consentText)}</p>
<form method="post" action="${setupPath(session)}">
<label for="card-number">Card number</label>
<input id="card-number" name="card_number" inputmode="numeric" autocomplete="cc-number" required${aria}>
${errorHtml}
<p class="hint">${escapeHtml(SETUP_CARDS_HINT)}</p>
<button type="submit">${escapeHtml(SETUP_TEXT.save)}</button>
</form>
<a class="cancel" href="${escapeHtml(session.cancelUrl)}">Cancel</a>`,
  );
}

/** The simulated 3-D Secure step: the card number rides along, as it is a test number. */
export function authenticationPage(session: CardSetupSessionRow, seller: string, cardNumber: string): string {
  return page(
    SETUP_TEXT.authTitle,
    `${sellerLine(seller)}
<h1>${escapeHtml(SETUP_TEXT.authTitle)}</h1>
<p>${escapeHtml(SETUP_TEXT.authIntro(cardNumber.slice(-4), seller))}</p>
<form method="post" action="${setupPath(session)}/authenticate">
<input type="hidden" name="card_number" value="${escapeHtml(cardNumber)}">
<button type="submit" name="outcome" value="complete">${escapeHtml(SETUP_TEXT.complete)}</button>
<button type="submit" name="outcome" value="fail" class="secondary">${escapeHtml(SETUP_TEXT.fail)}</button>
</form>
<a class="cancel" href="${escapeHtml(session.cancelUrl)}">Cancel</a>`,
  );
}

export function cardSetupRoutes(deps: {
  provider: LocalProvider;
  sellerName: string;
  headers: Record<string, string>;
  /** Called after a card is saved: deliver its webhook events. */
  afterSave: () => void;
}): Hono {
  const app = new Hono();
  const { provider, sellerName, headers } = deps;

  const gone = (c: Context, reason: "not_found" | "expired" | "complete") => {
    if (reason === "not_found") return c.html(messagePage(...SETUP_TEXT.notFound), 404, headers);
    if (reason === "expired") return c.html(messagePage(...SETUP_TEXT.expired), 410, headers);
    return c.html(messagePage(...SETUP_TEXT.complete409), 409, headers);
  };

  // 200 with the message beside the field, like the checkout page (a 4xx is a console error).
  const answer = (c: Context, result: SaveCardResult) => {
    if (result.ok) {
      deps.afterSave();
      return c.redirect(result.redirectTo, 303);
    }
    if (result.reason === "authenticate")
      return c.html(authenticationPage(result.session, sellerName, result.cardNumber), 200, headers);
    if (result.reason === "card")
      return c.html(setupPage(result.session, sellerName, result.card.message), 200, headers);
    return gone(c, result.reason);
  };

  app.get("/setup/:id", async (c) => {
    const found = await provider.findSetupPage(c.req.param("id"));
    if (!found.ok) return gone(c, found.reason);
    return c.html(setupPage(found.session, sellerName), 200, headers);
  });

  app.post("/setup/:id", async (c) => {
    const card = text(await readForm(c), "card_number", 64);
    return answer(c, await provider.submitCard(c.req.param("id"), card, false));
  });

  app.post("/setup/:id/authenticate", async (c) => {
    const form = await readForm(c);
    const id = c.req.param("id");
    if (text(form, "outcome", 16) !== "complete") {
      const found = await provider.findSetupPage(id);
      if (!found.ok) return gone(c, found.reason);
      return c.html(setupPage(found.session, sellerName, SETUP_TEXT.authFailed), 200, headers);
    }
    return answer(c, await provider.submitCard(id, text(form, "card_number", 64), true));
  });

  return app;
}
