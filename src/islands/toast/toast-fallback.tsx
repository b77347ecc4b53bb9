// The toasts as daisyUI's toast and alerts, for a page that could not load react-toastify's chunk:
// a deploy replaced the chunk while the page was open, or the network dropped. Without it a
// visitor was told nothing at all, not even that a payment or a password change failed. Part of
// ToastHost's own chunk, so it is there whenever the host is. Same rules as the library's view
// (toast-view.tsx): one toast per message at a time, closed after 5000 ms or by its button, at the
// top right below the top bar, at the bottom on a phone.
import { useEffect, useRef, useState } from "react";
import { TOAST } from "../../lib/ui-text.ts";
import {
  $toasts,
  drainToasts,
  TOAST_AUTO_CLOSE_MS,
  type Toast,
  type ToastKind,
  toastKey,
} from "../../stores/toast.ts";

const ALERT: Record<ToastKind, string> = {
  success: "alert-success",
  error: "alert-error",
  info: "alert-info",
};

/** The toasts to add to `shown`: each message once, and none that is on the screen already. */
export function newToasts(shown: readonly Toast[], fresh: readonly Toast[]): Toast[] {
  const seen = new Set(shown.map(toastKey));
  return fresh.filter((t) => {
    const key = toastKey(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const without = (list: readonly Toast[], id: number) => list.filter((t) => t.id !== id);

export default function ToastFallback() {
  const [shown, setShown] = useState<readonly Toast[]>([]);
  // What is on the screen, for the queue's listener (it outlives the render it was made in).
  const onScreen = useRef<readonly Toast[]>([]);

  useEffect(() => {
    const show = (list: readonly Toast[]) => {
      onScreen.current = list;
      setShown(list);
    };
    const timers = new Set<ReturnType<typeof setTimeout>>();
    // Called at once with the queue as it is (nanostores), then on every toast.
    const unsubscribe = $toasts.subscribe(() => {
      const added = newToasts(onScreen.current, drainToasts());
      if (added.length === 0) return;
      show([...onScreen.current, ...added]);
      for (const t of added) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          show(without(onScreen.current, t.id));
        }, TOAST_AUTO_CLOSE_MS);
        timers.add(timer);
      }
    });
    return () => {
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
    };
  }, []);

  const close = (id: number) => {
    onScreen.current = without(onScreen.current, id);
    setShown(onScreen.current);
  };
  return (
    <div
      className="toast toast-center toast-bottom pointer-events-none z-50 min-[481px]:toast-end min-[481px]:toast-top"
      data-toast-fallback
    >
      {shown.map((t) => (
        <div
          key={t.id}
          role={t.kind === "error" ? "alert" : "status"}
          className={`alert ${ALERT[t.kind]} pointer-events-auto max-w-sm whitespace-normal`}
        >
          <span>{t.message}</span>
          <button
            type="button"
            className="btn btn-ghost btn-sm btn-square"
            aria-label={TOAST.close}
            onClick={() => close(t.id)}
          >
            <span aria-hidden="true">✕</span>
          </button>
        </div>
      ))}
    </div>
  );
}
