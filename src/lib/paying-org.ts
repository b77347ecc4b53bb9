// Which organisation a money action is for (ORGANISATIONS.md: "Every dialog that moves money names
// the organisation"): the team organisation the user answer says the page acts on, named in the
// plan, cancellation and top-up dialogs; nothing for the personal organisation, whose dialogs read
// as they did before organisations.
import type { User } from "../../contract/account.ts";

/** The chosen team organisation's name, or null when the page acts on the personal organisation. */
export function payingOrganisation(user: Pick<User, "organization">): string | null {
  const org = user.organization;
  return org && !org.personal && org.name ? org.name : null;
}

export const PAYING_ORG_TEXT = {
  changePlan: (org: string) => `This changes the plan of ${org}, paid with its card.`,
  cancel: (org: string) => `This cancels the plan of ${org}.`,
  topUp: (org: string) => `The credits go to ${org} and are paid on its invoice.`,
  subscribe: (org: string) => ` for ${org}`,
  /** On /plans, in place of Subscribe, for a member whose role does not buy (ORGANISATIONS.md). */
  subscribeByOthers: (org: string) => `The plan of ${org} is chosen by its owners and billing members.`,
} as const;
