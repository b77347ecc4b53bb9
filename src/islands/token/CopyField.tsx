// A read-only field with a copy button: the bearer token of 'Copy Bearer Token' and a new API key.
// The button says 'Copied' for 2000 ms (spec section 9) and a toast confirms; without clipboard
// permission the text is selected so Ctrl+C or a long press still works.
import { useEffect, useId, useState } from "react";
import { TOAST, UI_TEXT } from "../../lib/ui-text.ts";
import { notify } from "../../stores/toast.ts";

/** Spec section 9: the copied indicator lasts 2000 ms. */
export const COPIED_INDICATOR_MS = 2000;

export function CopyField({ label, value }: { label: string; value: string }) {
  const fieldId = useId();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      notify("success", TOAST.copied);
    } catch {
      const field = document.getElementById(fieldId);
      if (field instanceof HTMLInputElement) field.select();
    }
  };

  return (
    <>
      <label htmlFor={fieldId} className="mt-4 block text-sm font-medium">
        {label}
      </label>
      <div className="join mt-1.5 w-full">
        <input
          id={fieldId}
          className="input join-item w-full font-mono text-xs"
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="btn btn-primary join-item min-w-24" onClick={copy}>
          {copied ? UI_TEXT.token.copied : UI_TEXT.token.copy}
        </button>
      </div>
    </>
  );
}
