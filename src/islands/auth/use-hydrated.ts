// False in the prebuilt HTML and during hydration, true once the island runs: lets a form keep its
// submit button disabled until submitting really goes through the island (a click before that
// would post the static form to the page's own URL).
import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
