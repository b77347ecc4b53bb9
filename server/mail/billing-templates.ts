// The billing e-mails (text and HTML, like the account mails): a payment receipt with its invoice,
// a failed payment with the link to update the card, a plan change scheduled and applied, a
// cancellation confirmed, a subscription ended, top-up credits about to expire, credits support
// granted, and a dispute hold placed. Dates are
// Berlin calendar days; amounts are exact (cents), as on the invoice.
import { formatMoney as money } from "../../contract/money.ts";
import { formatRate, invoiceNote, type TaxTreatment } from "../domain/vat.ts";
import type { MailMessage } from "./message.ts";
import { PRODUCT_NAME, render } from "./templates.ts";

export interface MailUser {
  email: string;
  username: string;
}

const credits = (amount: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 }).format(amount);

export function receiptMail(
  user: MailUser,
  p: {
    description: string;
    /** Berlin day. */
    date: string;
    number: string | null;
    currency: string;
    net: number;
    tax: number;
    total: number;
    taxRateBasisPoints: number | null;
    taxTreatment: TaxTreatment | null;
    invoiceUrl: string;
  },
): MailMessage {
  const vat =
    p.taxRateBasisPoints === null
      ? `VAT ${money(p.tax, p.currency)}`
      : `VAT ${formatRate(p.taxRateBasisPoints)} ${money(p.tax, p.currency)}`;
  const note = p.taxTreatment ? invoiceNote(p.taxTreatment) : null;
  return render(user.email, {
    subject: `Your ${PRODUCT_NAME} receipt: ${money(p.total, p.currency)} for ${p.description}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Thank you for your payment of ${money(p.total, p.currency)} on ${p.date} for ${p.description} (net ${money(p.net, p.currency)}, ${vat}).`,
      p.number ? `Your invoice number is ${p.number}.` : "Your invoice is ready.",
      ...(note ? [note] : []),
    ],
    action: { label: "View the invoice", url: p.invoiceUrl },
    closing: "Keep this e-mail for your records. Your billing history lists every payment and invoice.",
  });
}

export function paymentFailedMail(
  user: MailUser,
  p: {
    plan: string;
    currency: string;
    total: number;
    /** Berlin day of the next attempt; null when there will be none. */
    nextAttempt: string | null;
    updateUrl: string;
  },
): MailMessage {
  const amount = money(p.total, p.currency);
  return render(user.email, {
    subject: p.nextAttempt
      ? `Your ${PRODUCT_NAME} payment of ${amount} failed: update your card`
      : `Your ${PRODUCT_NAME} payment of ${amount} failed again: your plan ends`,
    greeting: `Hi ${user.username},`,
    paragraphs: p.nextAttempt
      ? [
          `We could not charge ${amount} to your card for the renewal of ${p.plan}.`,
          `We will try again on ${p.nextAttempt}. Update your payment method before then: the open payment is charged to the new card at once and your plan goes on.`,
        ]
      : [
          `We could not charge ${amount} to your card for the renewal of ${p.plan}, and that was the last attempt.`,
          "Your subscription ends now. Your unexpired credits stay yours; you can subscribe again at any time.",
        ],
    action: p.nextAttempt
      ? { label: "Update payment method", url: p.updateUrl }
      : { label: "See your billing", url: p.updateUrl },
    closing: "If you think this is a mistake, reply to this e-mail.",
  });
}

export function planChangeScheduledMail(
  user: MailUser,
  p: { from: string; to: string; date: string; profileUrl: string },
): MailMessage {
  return render(user.email, {
    subject: `Your ${PRODUCT_NAME} plan changes to ${p.to} on ${p.date}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `You asked to change your plan from ${p.from} to ${p.to}. ${p.from} stays active until ${p.date}; from then on you are billed for ${p.to} and get its monthly credits.`,
    ],
    action: { label: "See your plan", url: p.profileUrl },
    closing: "You can change your mind until then on your account page.",
  });
}

export function planChangeAppliedMail(user: MailUser, p: { plan: string; profileUrl: string }): MailMessage {
  return render(user.email, {
    subject: `You are now on ${p.plan}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [`Your plan change has taken effect: you are now on ${p.plan}, with its monthly credits.`],
    action: { label: "See your plan", url: p.profileUrl },
    closing: "A receipt for this month's payment comes in a separate e-mail.",
  });
}

export function cancellationConfirmedMail(
  user: MailUser,
  p: { plan: string; date: string; profileUrl: string },
): MailMessage {
  return render(user.email, {
    subject: `Your ${PRODUCT_NAME} subscription is cancelled`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Your ${p.plan} subscription is cancelled. It stays active until ${p.date} and is not renewed after that; you are then on the Free plan and keep your unexpired credits.`,
    ],
    action: { label: "See your plan", url: p.profileUrl },
    closing: "Changed your mind? You can subscribe again at any time.",
  });
}

export function subscriptionEndedMail(user: MailUser, p: { plan: string; plansUrl: string }): MailMessage {
  return render(user.email, {
    subject: `Your ${PRODUCT_NAME} ${p.plan} subscription has ended`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Your ${p.plan} subscription has ended and you are on the Free plan now. Credits that have not expired stay yours.`,
    ],
    action: { label: "See the plans", url: p.plansUrl },
    closing: "Thank you for using our service.",
  });
}

export function topUpExpiringMail(
  user: MailUser,
  p: { credits: number; pack: string; date: string; usageUrl: string },
): MailMessage {
  return render(user.email, {
    subject: `${credits(p.credits)} top-up credits expire on ${p.date}`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `${credits(p.credits)} credits of your ${p.pack} are still unused and expire on ${p.date} (Berlin time). Credits are spent soonest-expiring first, after your subscription's.`,
    ],
    action: { label: "See your credits", url: p.usageUrl },
    closing: "You get this e-mail once per pack.",
  });
}

/** Support granted goodwill credits (the console): the amount, their expiry, and staff's note if any. */
export function goodwillGrantMail(
  user: MailUser,
  p: {
    credits: number;
    note: string | null;
    expires: string | null;
    profileUrl: string;
    /** The team organisation that got them (its name); null for the personal account. */
    team: string | null;
  },
): MailMessage {
  const amount = credits(p.credits);
  return render(user.email, {
    subject: p.team
      ? `${amount} credits for ${p.team} from ${PRODUCT_NAME} support`
      : `${amount} credits from ${PRODUCT_NAME} support`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `Our support team added ${amount} credits to ${p.team ? `the organisation ${p.team}` : "your account"}. ${
        p.expires ? `They expire on ${p.expires} (Berlin time)` : "They do not expire"
      }. Subscription and top-up credits are spent first; your profile lists all your credits in the order they are spent.`,
      ...(p.note ? [`Their note: "${p.note}"`] : []),
    ],
    action: { label: "See your credits", url: p.profileUrl },
    closing: "Questions about these credits? Reply to this e-mail.",
  });
}

/**
 * A lost dispute put the organisation on hold (ACCOUNT-SECURITY.md): what happened to which payment,
 * what the hold stops, and what to do (as the portal's alert says: contact support).
 */
export function disputeHoldMail(
  user: MailUser,
  p: {
    /** The disputed payment's invoice number; null when the provider has not numbered it yet. */
    number: string | null;
    description: string;
    currency: string;
    /** What the bank took back: the payment's total less what was refunded before the dispute. */
    takenBack: number;
    invoiceUrl: string;
    /** The team organisation on hold (its name); null for the personal account. */
    team: string | null;
  },
): MailMessage {
  const amount = p.takenBack > 0 ? ` of ${money(p.takenBack, p.currency)}` : "";
  const payment = `the payment${amount} for ${p.number ? `invoice ${p.number}` : p.description}`;
  return render(user.email, {
    subject: p.team
      ? `${p.team} is on hold: a payment was disputed`
      : `Your ${PRODUCT_NAME} account is on hold: a payment was disputed`,
    greeting: `Hi ${user.username},`,
    paragraphs: [
      `The bank took back ${payment} after a dispute. Credits it bought had already been used; the rest of them were removed from the balance.`,
      `${p.team ? `The organisation ${p.team}` : "Your account"} is on hold until our support team clears it: API calls with ${p.team ? "its" : "your"} keys are refused, and auto top-up is off and charges nothing.`,
      "To settle the payment and clear the hold, contact support: reply to this e-mail.",
    ],
    action: { label: "View the invoice", url: p.invoiceUrl },
    closing: "The balance stays as it is; its credits can be used again once the hold is cleared.",
  });
}
