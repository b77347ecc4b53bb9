// What bounds a key's spending besides its own monthly limit: in a team organisation, each key a
// member made counts against that member's monthly cap, all their keys together (ORGANISATIONS.md
// "Member monthly caps"). Shared keys count against no member's cap.
import type { ApiKey } from "../../contract/api-keys.ts";
import type { Member } from "../../contract/orgs.ts";
import { formatBalance } from "./account-view.ts";

export interface KeyCap {
  /** The member's cap in credits per Berlin month, and what all their keys spent of it. */
  cap: number;
  spent: number;
  /** Whether the member is the one reading the page. */
  own: boolean;
  username: string;
}

/** The cap that bounds `key`, from the organisation's member list; null when none does. */
export function capOfKey(key: ApiKey, members: readonly Member[], viewerId: string): KeyCap | null {
  if (key.shared) return null;
  const maker = members.find((m) => m.user_id === key.created_by.user_id);
  // No cap, or not one the viewer may see (another member's, to a developer).
  if (maker?.monthly_credit_cap == null) return null;
  return {
    cap: maker.monthly_credit_cap,
    spent: maker.spent_this_month ?? 0,
    own: maker.user_id === viewerId,
    username: maker.username,
  };
}

/** "10 of 12 credits (all your keys)", or "(all of dev's keys)" for another member's key. */
export function capText(cap: KeyCap): string {
  const whose = cap.own ? "all your keys" : `all of ${cap.username}'s keys`;
  return `${formatBalance(cap.spent)} of ${formatBalance(cap.cap)} credits (${whose})`;
}
