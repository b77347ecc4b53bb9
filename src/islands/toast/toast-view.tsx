// Loaded on demand by ToastHost: react-toastify's container, fed from the $toasts queue. Its CSS
// is part of every page's stylesheet (BaseLayout), so a toast never shows unstyled.
import { useEffect, useSyncExternalStore } from "react";
import { ToastContainer, type ToastPosition, toast } from "react-toastify/unstyled";
import { $toasts, drainToasts, TOAST_AUTO_CLOSE_MS, toastKey } from "../../stores/toast.ts";

/** react-toastify's own phone width: up to it a toast spans the screen, pinned to an edge. */
const PHONE = "(max-width: 480px)";
const DARK = "(prefers-color-scheme: dark)";

/** Whether `query` matches now, following changes (a phone turned, the system theme switched). */
function useMedia(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", changed);
      return () => list.removeEventListener("change", changed);
    },
    () => window.matchMedia(query).matches,
  );
}

export default function ToastView() {
  useEffect(
    () =>
      $toasts.subscribe(() => {
        // One toast per message while it shows: react-toastify ignores a toast whose id is on
        // screen, so the same words said twice in a row (an action and its echo) do not stack up.
        // One per topic too: a toast of a topic on screen is updated to the new words (its timer
        // starts again), so ten invitations sent in a row leave one toast, not ten over a phone.
        for (const t of drainToasts()) {
          const toastId = t.topic ?? toastKey(t);
          if (t.topic && toast.isActive(toastId)) toast.update(toastId, { render: t.message, type: t.kind });
          else toast[t.kind](t.message, { toastId });
        }
      }),
    [],
  );
  // On a phone the top bar (and its Menu) fills the top edge, which a full-width toast would
  // cover: there toasts rise from the bottom. Wider screens keep the spec's top-right, below the
  // top bar (global.css). The "colored" theme's white-on-red fails WCAG contrast; light or dark
  // follow the visitor's theme.
  const position: ToastPosition = useMedia(PHONE) ? "bottom-center" : "top-right";
  const dark = useMedia(DARK);
  return (
    <ToastContainer position={position} autoClose={TOAST_AUTO_CLOSE_MS} theme={dark ? "dark" : "light"} />
  );
}
