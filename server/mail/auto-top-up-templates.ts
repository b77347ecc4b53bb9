// Auto top-up's e-mails (AUTO-TOP-UP.md), to owners and billing members: the bank asks to confirm
// a payment (with the link that completes it), auto top-up paused (a decline, a limit) or turned
// off, each with the reason as Billing words it. The receipt of a paid auto top-up is the ordinary
// receipt (billing-templates.ts).
import type { MailUser } from "./billing-templates.ts";
import type { MailMessage } from "./message.ts";
import { PRODUCT_NAME, render } from "./templates.ts";

/** The bank wants the customer to confirm an automatic payment: the link completes that same payment. */
export function autoTopUpActionMail(
  user: MailUser,
  p: { organisation: string; amount: string; credits: string; payUrl: string; billingUrl: string },
): MailMessage {
  return render(user.email, {
    subject: `Confirm the automatic payment of ${p.amount} for ${p.organisation}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Auto top-up tried to buy ${p.credits} credits for ${p.organisation} (${p.amount}), and your bank asks you to confirm the payment.`,
      "Auto top-up is paused until it is paid. The link works for 7 days; after that the payment is cancelled and nothing is charged.",
      `You can also see the payment under Billing: ${p.billingUrl}`,
    ],
    action: { label: "Confirm the payment", url: p.payUrl },
    closing: "You get this e-mail once per payment.",
  });
}

/** Auto top-up paused or turned off: why, in Billing's words, and what to do. */
export function autoTopUpStoppedMail(
  user: MailUser,
  p: {
    organisation: string;
    status: "paused" | "off";
    sentence: string;
    detail: string | null;
    billingUrl: string;
    /** Off for a dispute hold: it cannot be turned on, nor called, until support clears the hold. */
    onHold?: boolean;
  },
): MailMessage {
  const state = p.status === "paused" ? "paused" : "turned off";
  const again = p.onHold
    ? "It can be turned on again, with your consent to the charges, once our support team clears the hold."
    : p.status === "off"
      ? "Turning it on again asks for your consent to the charges again."
      : "Your settings are kept.";
  return render(user.email, {
    subject: `Auto top-up is ${state} for ${p.organisation}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Auto top-up is ${state} for ${p.organisation}: your ${PRODUCT_NAME} credits are not topped up automatically until it runs again.`,
      p.sentence,
      ...(p.detail ? [p.detail] : []),
      again,
    ],
    action: { label: "Open Billing", url: p.billingUrl },
    closing: p.onHold
      ? "Until then, API calls with its keys are refused: see our e-mail about the hold."
      : "Your program stops generating when the balance reaches zero.",
  });
}
