// Loaded on demand by ToastHost: react-toastify's container, fed from the $toasts queue. Its CSS
// is part of every page's stylesheet (BaseLayout), so a toast never shows unstyled.
import { useEffect } from "react";
import { ToastContainer, toast } from "react-toastify/unstyled";
import { $toasts, drainToasts } from "../../stores/toast.ts";

/** Spec section 9: toasts close after 5000 ms, top-right. */
export const TOAST_AUTO_CLOSE_MS = 5000;

export default function ToastView() {
  useEffect(
    () =>
      $toasts.subscribe(() => {
        for (const t of drainToasts()) toast[t.kind](t.message, { toastId: `toast-${t.id}` });
      }),
    [],
  );
  // The "colored" theme's white-on-red fails WCAG contrast; light or dark follow the visitor's theme.
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  return (
    <ToastContainer position="top-right" autoClose={TOAST_AUTO_CLOSE_MS} theme={dark ? "dark" : "light"} />
  );
}
