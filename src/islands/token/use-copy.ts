// Copying a text for the visitor: the clipboard, the spec's 'Copied to clipboard!' toast, and a
// `copied` flag that lasts COPIED_INDICATOR_MS (spec section 9) for the button's label. Without
// clipboard permission `onRefused` runs (select the text, so Ctrl+C or a long press still works).
import { useEffect, useState } from "react";
import { TOAST } from "../../lib/ui-text.ts";
import { notify } from "../../stores/toast.ts";

/** Spec section 9: the copied indicator lasts 2000 ms. */
export const COPIED_INDICATOR_MS = 2000;

export function useCopy(text: string, onRefused: () => void) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      notify("success", TOAST.copied);
    } catch {
      onRefused();
    }
  };
  return { copied, copy };
}
