// The account mails. Links are built from PORTAL_URL (configuration), never from the request's
// Host header, so a forged Host cannot make us mail a link to someone else's site.

import { PRODUCT_NAME } from "../../contract/brand.ts";
import type { MailMessage } from "./message.ts";

export { PRODUCT_NAME };

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

export function verificationLink(portalUrl: string, token: string): string {
  return `${portalUrl}/verify-email/${encodeURIComponent(token)}`;
}

export function passwordResetLink(portalUrl: string, token: string): string {
  return `${portalUrl}/reset-password/${encodeURIComponent(token)}`;
}

export interface MailContent {
  subject: string;
  greeting: string;
  paragraphs: string[];
  action: { label: string; url: string };
  closing: string;
}

export function render(to: string, content: MailContent): MailMessage {
  const text = [
    content.greeting,
    "",
    ...content.paragraphs.flatMap((p) => [p, ""]),
    `${content.action.label}: ${content.action.url}`,
    "",
    content.closing,
    "",
    `-- ${PRODUCT_NAME}`,
    "",
  ].join("\n");
  const paragraph = (p: string) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1f2937;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">
${paragraph(content.greeting)}
${content.paragraphs.map(paragraph).join("\n")}
<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="background:#4f46e5;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#6b7280">If the button does not work, copy this address into your browser:<br>${escapeHtml(content.action.url)}</p>
${paragraph(content.closing)}
<p style="margin:0;color:#6b7280">${escapeHtml(PRODUCT_NAME)}</p>
</body></html>
`;
  return { to, subject: content.subject, text, html };
}

export function verificationMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  token: string;
}): MailMessage {
  return render(args.to, {
    subject: `Verify your e-mail address for ${PRODUCT_NAME}`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `Please confirm that this is your e-mail address to finish setting up your ${PRODUCT_NAME} account.`,
      "The link works once and expires in 24 hours.",
    ],
    action: { label: "Verify e-mail address", url: verificationLink(args.portalUrl, args.token) },
    closing: "If you did not create an account, you can ignore this message.",
  });
}

export function passwordResetMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  token: string;
}): MailMessage {
  return render(args.to, {
    subject: `Reset your ${PRODUCT_NAME} password`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      "Someone asked to reset the password of your account. If it was you, choose a new password with the link below.",
      "The link works once and expires in 1 hour. Resetting your password signs you out of every browser; your API keys keep working (you can revoke them on the API keys page).",
    ],
    action: { label: "Choose a new password", url: passwordResetLink(args.portalUrl, args.token) },
    closing: "If you did not ask for this, ignore this message: your password stays as it is.",
  });
}

/**
 * After a password reset (ACCOUNT-SECURITY.md): says what happened and, truthfully, what did not:
 * every browser is signed out, but API keys keep working; they are listed with one action that
 * revokes them all.
 */
export function passwordChangedMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  /** When, as the mail shows it ("2026-11-25 22:14 CET"). */
  at: string;
  ip: string | null;
  /** With the organisation each spends (null or absent: the personal account). */
  keys: readonly { name: string; prefix: string; orgName?: string | null }[];
  /** The passkeys that still sign in without the password (issue 30): a stranger's is removed by hand. */
  passkeys?: readonly { name: string }[];
  /** Reset through a mailed link, or changed on the security page with the current password. */
  how?: "reset" | "changed";
}): MailMessage {
  const where = args.ip ? ` from the address ${args.ip}` : "";
  const done = args.how === "changed" ? "changed" : "reset";
  const keys =
    args.keys.length === 0
      ? ["Your account has no API keys."]
      : [
          `These API keys keep working: ${args.keys.map((k) => `${k.name} (${k.prefix}…${k.orgName ? `, ${k.orgName}` : ""})`).join(", ")}. If you did not ${args.how === "changed" ? "change" : "reset"} your password, revoke them all now.`,
        ];
  const passkeys =
    args.passkeys && args.passkeys.length > 0
      ? [
          `These passkeys still sign in without the password: ${args.passkeys.map((p) => p.name).join(", ")}. Remove any you do not recognise on your security page (${args.portalUrl}/profile/security).`,
        ]
      : [];
  return render(args.to, {
    subject: `Your ${PRODUCT_NAME} password was changed`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `The password of your account was ${done} on ${args.at}${where}. ${args.how === "changed" ? "Every other browser" : "Every browser"} signed in to your account has been signed out.`,
      ...keys,
      ...passkeys,
    ],
    action: { label: "Revoke all API keys", url: `${args.portalUrl}/profile/api-keys#revoke-all` },
    closing: "If this was you, there is nothing else to do.",
  });
}

/**
 * A new API key (ACCOUNT-SECURITY.md): a key minted with a stolen session would spend the account's
 * credits unnoticed, so the owner hears of every one, with what it may do and where to revoke it.
 */
export function apiKeyCreatedMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  at: string;
  ip: string | null;
  /** The team organisation the key spends for; null for the personal account. */
  team: string | null;
  key: {
    name: string;
    prefix: string;
    expiresAt: string | null;
    monthlyCreditLimit: number | null;
    features: readonly string[] | null;
  };
}): MailMessage {
  const { key, team } = args;
  const limits = [
    `expires: ${key.expiresAt ?? "never"}`,
    `monthly credit limit: ${key.monthlyCreditLimit === null ? "none" : credits(key.monthlyCreditLimit)}`,
    `features: ${key.features ? key.features.join(", ") : "all"}`,
  ].join("; ");
  return render(args.to, {
    subject: team
      ? `A new API key was created for ${team} on ${PRODUCT_NAME}`
      : `A new API key was created for your ${PRODUCT_NAME} account`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `The API key "${key.name}" (${key.prefix}…)${team ? ` of the organisation ${team}` : ""} was created on ${args.at}${args.ip ? ` from the address ${args.ip}` : ""}.`,
      `What it may do: ${limits}.`,
      `If you did not create it, revoke it now and change your password: anyone holding it can spend ${team ? `${team}'s` : "your"} credits.`,
    ],
    action: { label: "See your API keys", url: `${args.portalUrl}/profile/api-keys` },
    closing: "If this was you, there is nothing else to do.",
  });
}

/** Credits as the portal shows them: "1,234.5". */
const credits = (amount: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 }).format(amount);

export function lowBalanceMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  /** Credits. */
  threshold: number;
  balance: number;
}): MailMessage {
  return render(args.to, {
    subject: `Your ${PRODUCT_NAME} balance is below ${credits(args.threshold)} credits`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `Your credit balance has fallen below ${credits(args.threshold)} credits: ${credits(args.balance)} credits are left.`,
      "When it reaches zero, generations are refused until you add credits with a top-up pack or a higher plan. Your usage page shows what spent them.",
    ],
    action: { label: "Add credits", url: `${args.portalUrl}/profile` },
    closing: `You get this e-mail once each time your balance falls below the amount you chose. Change or turn off the alert on ${args.portalUrl}/profile.`,
  });
}
