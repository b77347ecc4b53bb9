// What a deletion's mail says ended with it, in the same words whether an account was deleted
// (security-templates.ts, accountDeletedMail) or a team organisation (orgs/org-mails.ts,
// orgDeletedMail): the paid plan, ended at once without a refund, and the credits written off.

/** A number of credits as the mails write it: "1,234.5". */
const creditAmount = (amount: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 }).format(amount);

/** "1 paid day", "12 paid days". */
export const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The paid plan a deletion ended, with the whole days of its paid period left. */
export interface EndedPlan {
  name: string;
  daysLeft: number;
}

/**
 * "This confirms that its Pro subscription ended then, at once and without a refund for the 12 paid
 * days left, and is not renewed." `whose`: "its" (an organisation's) or "your" (an account's).
 */
export function planEndedText(whose: "its" | "your", plan: EndedPlan): string {
  const days = plan.daysLeft > 0 ? ` for the ${counted(plan.daysLeft, "paid day", "paid days")} left` : "";
  return `This confirms that ${whose} ${plan.name} subscription ended then, at once and without a refund${days}, and is not renewed.`;
}

/** "Its 12.5 credits were written off: they can no longer be used." `whose`: "Its" or "Your". */
export function creditsWrittenOffText(whose: "Its" | "Your", credits: number): string {
  return `${whose} ${creditAmount(credits)} credits were written off: they can no longer be used.`;
}
