// The mail to an account's owner when wrong second factors pass the hourly limit
// (auth/code-guessing.ts): only someone with the password reaches the code step, so the password
// is what to change. It links to the reset, which works while sign-in is paused.
import type { MailMessage } from "./message.ts";
import { PRODUCT_NAME, render } from "./templates.ts";

export function codeGuessingMail(args: {
  to: string;
  username: string;
  portalUrl: string;
  /** When, as mailTime() writes it. */
  at: string;
  ip: string | null;
}): MailMessage {
  const from = args.ip ? ` (the last from the address ${args.ip})` : "";
  return render(args.to, {
    subject: `Someone who knows your ${PRODUCT_NAME} password is guessing your codes`,
    greeting: `Hi ${args.username},`,
    paragraphs: [
      `By ${args.at}, too many wrong two-factor codes had been tried within an hour to sign in to your account${from}. Each of them came after the right password.`,
      "Signing in to your account is paused for up to an hour. Your two-factor sign-in kept the account safe, but your password is known: reset it now, and choose one you use nowhere else.",
    ],
    action: { label: "Reset your password", url: `${args.portalUrl}/forgot-password` },
    closing: "If these were your own mistyped codes, wait an hour and sign in again.",
  });
}
