// The page's one toast area (top-right below the top bar, at the bottom on phones; closing after
// 5000 ms). react-toastify is only downloaded when the first toast appears, so pages that never
// toast do not pay for it (its CSS, 2.7 KB gzip, is in the page's stylesheet: see BaseLayout).
// Should its chunk not load, the toasts show as daisyUI alerts instead (toast-fallback.tsx).
import { type ComponentType, useEffect, useState } from "react";
import { $toasts, takeFlashToasts } from "../../stores/toast.ts";
import ToastFallback from "./toast-fallback.tsx";

type ToastView = ComponentType<Record<string, never>>;

export default function ToastHost() {
  const [View, setView] = useState<ToastView | null>(null);

  useEffect(() => {
    let loading = false;
    const load = () => {
      if (loading || $toasts.get().length === 0) return;
      loading = true;
      // Not tried again: a chunk a deploy has replaced stays missing for as long as the page is open.
      import("./toast-view.tsx").then(
        (module) => setView(() => module.default),
        () => setView(() => ToastFallback),
      );
    };
    const unsubscribe = $toasts.subscribe(load);
    takeFlashToasts();
    return unsubscribe;
  }, []);

  return View ? <View /> : null;
}
