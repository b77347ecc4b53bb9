// The hook every account island uses: starts the page's session check once and reads $user with
// @nanostores/react's useStore. `ssr: "initial"` makes the hydrating render use the store's initial
// value ("unknown"), so it matches the prebuilt HTML; the next render shows the real state.

import { useStore } from "@nanostores/react";
import { useEffect } from "react";
import { $user, initSession, type UserState } from "../../stores/auth.ts";

export function useSession(): UserState {
  useEffect(() => {
    void initSession();
  }, []);
  return useStore($user, { ssr: "initial" });
}
