// Where other features plug into the account life cycle. Billing grants the free initial credits
// from onEmailVerified: it runs inside the transaction that marks the address verified, exactly once
// per user (only the call that flips email_verified from false to true reaches it), so the grant
// commits or rolls back together with the verification.
import type { Tx } from "../db/types.ts";

export interface EmailVerifiedEvent {
  userId: string;
  /** The address just verified. */
  email: string;
  at: Date;
}

export interface AccountHooks {
  onEmailVerified(tx: Tx, event: EmailVerifiedEvent): Promise<void>;
}
