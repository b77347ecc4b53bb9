// After the old address changed the e-mail back (issue 30): what was added to the account while
// the address was changed, for /profile/security's notice. Removing an item reuses the page's own
// actions (stores/passkeys.ts, stores/api-keys.ts) and reads the list again.
import { atom } from "nanostores";
import type { RevertReview } from "../../contract/email-revert.ts";
import { revokeApiKey } from "./api-keys.ts";
import { removePasskey } from "./passkeys.ts";
import { $emailState, loadEmailState } from "./security.ts";

/** Null until read, or when there is nothing to review (a failed read shows nothing either). */
export const $revertReview = atom<RevertReview | null>(null);

/** The way back whose list the owner kept ("I added these myself"), in this browser. */
const KEPT = "revert-review-kept";

// The review comes with the page's read of the e-mail state (GET /v1/users/me/email), whoever asked.
$emailState.listen((state) => {
  const review = state?.revert_review ?? null;
  $revertReview.set(review && localStorage.getItem(KEPT) === review.reverted_at ? null : review);
});

/** Reads the list again (with the e-mail state), after the sections below changed something. */
export const loadRevertReview = loadEmailState;

/** The owner keeps everything listed: the notice stays closed for this way back. */
export function keepAllAdded(): void {
  const review = $revertReview.get();
  if (review) localStorage.setItem(KEPT, review.reverted_at);
  $revertReview.set(null);
}

export async function removeAddedPasskey(id: string): Promise<void> {
  await removePasskey(id);
  await loadRevertReview();
}

/** Revokes a key listed, in its own organisation (`organization`), whichever the page has chosen. */
export async function revokeAddedApiKey(id: string, organization?: string): Promise<void> {
  await revokeApiKey(id, organization);
  await loadRevertReview();
}
