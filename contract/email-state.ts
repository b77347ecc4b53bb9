// `GET /v1/users/me/email`: the account's e-mail address beyond the address itself, as
// /profile/security shows it: the change waiting for its link (which the owner can cancel), and
// after a way back, what was added meanwhile (email-revert.ts). Browser-safe (zod/mini).
import * as z from "zod/mini";
import { revertReviewSchema } from "./email-revert.ts";

const instant = z.iso.datetime({ offset: true });

const pendingEmailChangeSchema = z.object({
  /** The address the account gets when the link mailed to it is followed. */
  email: z.string(),
  /** When that link stops working. */
  expires_at: instant,
});

export const emailStateSchema = z.object({
  /** Null when no change is waiting (none asked, followed, expired or cancelled). */
  pending_change: z.nullable(pendingEmailChangeSchema),
  /** As `GET /v1/users/me/email/revert-review`'s `review`. */
  revert_review: revertReviewSchema.shape.review,
});
export type EmailState = z.infer<typeof emailStateSchema>;
