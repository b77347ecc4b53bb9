// Toasts as data: any island calls `notify`; the one ToastHost island shows them (loading
// react-toastify only when the first toast appears). A toast that must survive a page change
// ("You're logged in successfully!", then /) goes through sessionStorage with `notifyAfterNavigation`.
import { atom } from "nanostores";

export type ToastKind = "success" | "error" | "info";

/** Spec section 9: toasts close after 5000 ms. */
export const TOAST_AUTO_CLOSE_MS = 5000;

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  /**
   * Toasts of one topic (the invitations sent from one form): a new one takes the place of the
   * one on screen instead of stacking (toast-view.tsx; the fallback stacks them).
   */
  topic?: string | undefined;
}

/** What makes two toasts the same: one of them shows at a time (react-toastify's toastId). */
export const toastKey = (t: Pick<Toast, "kind" | "message">): string => `${t.kind}:${t.message}`;

const FLASH_KEY = "portal-flash-toasts";
let nextId = 1;

/** Toasts waiting to be shown; ToastHost takes them out. */
export const $toasts = atom<readonly Toast[]>([]);

export function notify(kind: ToastKind, message: string, topic?: string): void {
  $toasts.set([...$toasts.get(), { id: nextId++, kind, message, topic }]);
}

/** Keeps a toast for the next page this tab opens (the spec's "toast, then navigate"). */
export function notifyAfterNavigation(kind: ToastKind, message: string): void {
  try {
    const pending = JSON.parse(sessionStorage.getItem(FLASH_KEY) ?? "[]") as unknown;
    const list = Array.isArray(pending) ? pending : [];
    sessionStorage.setItem(FLASH_KEY, JSON.stringify([...list, { kind, message }]));
  } catch {
    notify(kind, message);
  }
}

/** Moves toasts kept by the previous page into the queue. */
export function takeFlashToasts(): void {
  let pending: unknown;
  try {
    pending = JSON.parse(sessionStorage.getItem(FLASH_KEY) ?? "[]");
    sessionStorage.removeItem(FLASH_KEY);
  } catch {
    return;
  }
  if (!Array.isArray(pending)) return;
  for (const item of pending as { kind?: unknown; message?: unknown }[]) {
    const kind = item.kind === "error" || item.kind === "info" ? item.kind : "success";
    if (typeof item.message === "string") notify(kind, item.message);
  }
}

/** Takes every queued toast out of the queue. */
export function drainToasts(): Toast[] {
  const all = [...$toasts.get()];
  if (all.length) $toasts.set([]);
  return all;
}
