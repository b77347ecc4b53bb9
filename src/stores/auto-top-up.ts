// Auto top-up on /profile/billing (AUTO-TOP-UP.md): the acting organisation's settings and state,
// saving them (with the consent text for exactly those values), the saved card (the provider's
// page to add or replace it, removing it), and waiting for a card that arrives with the provider's
// event a moment after the customer comes back. Every call carries X-Organization (api-client.ts).
import { atom } from "nanostores";
import type { AutoTopUp, AutoTopUpRequest } from "../../contract/auto-top-up.ts";
import { apiRequest, asApiError } from "../lib/api-client.ts";
import { cardArrived, cardSignature } from "../lib/auto-top-up-form.ts";
import { withReauth } from "./reauth.ts";

const PATH = "/v1/billing/auto-top-up";

export interface AutoTopUpState {
  /** forbidden: the role in the acting organisation does not include billing (403). */
  status: "loading" | "ready" | "failed" | "forbidden";
  data: AutoTopUp | null;
}

export const $autoTopUp = atom<AutoTopUpState>({ status: "loading", data: null });

/**
 * Resume was refused because the terms changed since they were agreed to (the card's number or
 * the VAT on file): the settings form shows the new text for these values at once, with the API's
 * sentence beside "I agree" (AutoTopUpSettings.tsx takes it and sets this back to null).
 */
export const $termsToAgree = atom<{ request: AutoTopUpRequest; reason: string } | null>(null);

/** GET: a failure keeps what is shown and says so. */
export async function loadAutoTopUp(): Promise<AutoTopUp | null> {
  $autoTopUp.set({ ...$autoTopUp.get(), status: "loading" });
  try {
    const data = await apiRequest(PATH, "autoTopUpSchema", { auth: true });
    $autoTopUp.set({ status: "ready", data });
    return data;
  } catch (error) {
    const forbidden = asApiError(error).status === 403;
    $autoTopUp.set({ ...$autoTopUp.get(), status: forbidden ? "forbidden" : "failed" });
    return null;
  }
}

/** Reads again without showing the loading state (the poll after the card page). */
async function refresh(): Promise<AutoTopUp | null> {
  try {
    const data = await apiRequest(PATH, "autoTopUpSchema", { auth: true });
    $autoTopUp.set({ status: "ready", data });
    return data;
  } catch {
    return null;
  }
}

/**
 * PUT: raising the limit needs recent authentication, so the password is asked for when the API
 * wants it (withReauth). Throws ApiError (409 no card or plan, 422 per field) or ReauthCancelled.
 */
export async function saveAutoTopUp(request: AutoTopUpRequest): Promise<AutoTopUp> {
  const data = await withReauth(() =>
    apiRequest(PATH, "autoTopUpSchema", {
      method: "PUT",
      body: {
        ...request,
        monthly_limit: { ...request.monthly_limit },
        ...(request.consent ? { consent: { ...request.consent } } : {}),
      },
      auth: true,
    }),
  );
  $autoTopUp.set({ status: "ready", data });
  return data;
}

/** The consent text for exactly these values, to show before they are sent. Throws ApiError. */
export function loadConsentText(
  values: Pick<AutoTopUpRequest, "threshold" | "product_id" | "monthly_limit">,
): Promise<{ text: string; text_version: string }> {
  return apiRequest(`${PATH}/consent-text`, "consentTextSchema", {
    method: "POST",
    body: {
      threshold: values.threshold,
      product_id: values.product_id,
      monthly_limit: { ...values.monthly_limit },
    },
    auth: true,
  });
}

/** Where the card before the card page is kept, to tell the new one when it arrives. */
const CARD_BEFORE_KEY = "portal-auto-top-up-card-before";

/**
 * Sends the browser to the provider's page that saves a card (recent authentication: the password
 * may be asked for first). Throws ApiError or ReauthCancelled; on success the page is left.
 */
export async function openCardSetup(): Promise<void> {
  const { url } = await withReauth(() =>
    apiRequest("/v1/billing/payment-method/setup", "checkoutUrlSchema", { method: "POST", auth: true }),
  );
  try {
    sessionStorage.setItem(CARD_BEFORE_KEY, cardSignature($autoTopUp.get().data?.card ?? null));
  } catch {
    // No storage: any card that arrives counts as the new one.
  }
  window.location.assign(url);
}

/** DELETE the saved card: auto top-up turns off. Throws ApiError or ReauthCancelled. */
export async function removeCard(): Promise<AutoTopUp> {
  const data = await withReauth(() =>
    apiRequest("/v1/billing/payment-method", "autoTopUpSchema", { method: "DELETE", auth: true }),
  );
  $autoTopUp.set({ status: "ready", data });
  return data;
}

function takeCardBefore(): string | null {
  try {
    const before = sessionStorage.getItem(CARD_BEFORE_KEY);
    sessionStorage.removeItem(CARD_BEFORE_KEY);
    return before;
  } catch {
    return null;
  }
}

/** How long to wait before each read while the card is on its way: about 20 s in all. */
export const CARD_POLL_DELAYS_MS: readonly number[] = [1000, 1500, 2000, 3000, 4000, 4000, 5000];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * After `?card=saved`: reads until the new card is there (the provider's event saves it, not the
 * redirect). True when it arrived, false when it had not by the last read.
 */
export async function waitForCard(
  delays: readonly number[] = CARD_POLL_DELAYS_MS,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<boolean> {
  const before = takeCardBefore();
  const first = $autoTopUp.get().data ?? (await refresh());
  if (first && cardArrived(before, first.card)) return true;
  for (const delay of delays) {
    await wait(delay);
    const data = await refresh();
    if (data && cardArrived(before, data.card)) return true;
  }
  return false;
}
