// The hook every account island uses: starts the page's session check once and reads $user in a
// hydration-safe way (the first client render matches the prebuilt HTML, then the real state).

import { useEffect } from "react";
import { $user, initSession, type UserState } from "../../stores/auth.ts";
import { useAtom } from "./use-atom.ts";

export function useSession(): UserState {
  useEffect(() => {
    void initSession();
  }, []);
  return useAtom($user);
}
