// What /profile/security lists after the old address changed the e-mail back (issue 30): whatever
// was added to the account while the address was changed, for the owner to remove. Browser-safe
// (zod/mini), like the other contract modules.
import * as z from "zod/mini";

/** How long after a way back the page keeps listing what was added meanwhile. */
export const REVERT_REVIEW_DAYS = 30;

/**
 * How far before the change was asked for the list starts. Whoever changed the address held a
 * session before they asked, and may have added a key or a passkey then; a day covers a session
 * used over an afternoon, and the owner keeps what they added themselves.
 */
export const REVERT_REVIEW_LOOKBACK_HOURS = 24;

const instant = z.iso.datetime({ offset: true });

/** `GET /v1/users/me/email/revert-review`. */
export const revertReviewSchema = z.object({
  /** Null when no way back was followed in the last 30 days, or nothing added meanwhile is left. */
  review: z.nullable(
    z.object({
      /** The start of what is listed: REVERT_REVIEW_LOOKBACK_HOURS before the change was asked for. */
      since: instant,
      /** When the change was asked for. */
      changed_at: instant,
      /** When the old address changed it back: the end. */
      reverted_at: instant,
      passkeys: z.array(z.object({ id: z.string(), name: z.string(), created_at: instant })),
      /** When two-factor sign-in was turned on meanwhile, if it was and still is. */
      two_factor_on_at: z.nullable(instant),
      /** The keys the account made meanwhile, in every organisation: one made in a team spends its credits. */
      api_keys: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          prefix: z.string(),
          created_at: instant,
          /**
           * The organisation the key spends: its id (the X-Organization to revoke the key with) and
           * its name, null for the personal organisation.
           */
          organization: z.object({ id: z.string(), name: z.nullable(z.string()) }),
        }),
      ),
    }),
  ),
});
export type RevertReview = NonNullable<z.infer<typeof revertReviewSchema>["review"]>;
