// Reads a nanostores atom in a React island, as @nanostores/react's useStore(store, { ssr: "initial" })
// does for a plain atom: the hydrating render uses the atom's initial value, so it matches the
// prebuilt HTML, and later renders the current value. React's useSyncExternalStore does the rest;
// useStore's extra machinery (per-key listening, deep paths) cost every page 0.4 KB gzip unused.
import type { ReadableAtom } from "nanostores";
import { useSyncExternalStore } from "react";

export function useAtom<T>(store: ReadableAtom<T>): T {
  return useSyncExternalStore(
    (onChange) => store.listen(onChange),
    () => store.get(),
    () => store.init as T,
  );
}
