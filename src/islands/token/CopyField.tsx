// A read-only field with a copy button: the bearer token of 'Copy Bearer Token' and a new API key.
// The button says 'Copied' for a moment and a toast confirms (use-copy.ts); without clipboard
// permission the text is selected so Ctrl+C or a long press still works.
import { useId } from "react";
import { TOKEN_TEXT } from "../../lib/token-text.ts";
import { useCopy } from "./use-copy.ts";

export function CopyField({ label, value }: { label: string; value: string }) {
  const fieldId = useId();
  const { copied, copy } = useCopy(value, () => {
    const field = document.getElementById(fieldId);
    if (field instanceof HTMLInputElement) field.select();
  });

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
          {copied ? TOKEN_TEXT.copied : TOKEN_TEXT.copy}
        </button>
      </div>
    </>
  );
}
