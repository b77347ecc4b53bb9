// /profile/api-keys' sample call with a copy button. Each line of the command wraps inside the
// box, its continuation indented, rather than running off the right edge: at 390 px a scrolling
// box cut the URL ("…/v1/backgroun") with no sign that there was more (issue 31).
import { Fragment, useRef } from "react";
import { API_KEYS_TEXT } from "../../lib/api-keys-text.ts";
import { TOKEN_TEXT } from "../../lib/token-text.ts";
import { useHydrated } from "../auth/use-hydrated.ts";
import { useCopy } from "../token/use-copy.ts";

export default function CurlSample({ lines }: { lines: readonly string[] }) {
  const codeRef = useRef<HTMLElement>(null);
  const { copied, copy } = useCopy(lines.join("\n"), () => {
    if (codeRef.current) window.getSelection()?.selectAllChildren(codeRef.current);
  });
  // Disabled in the prebuilt HTML: the island hydrates once it comes into view (client:visible),
  // and a click before that would do nothing at all. No colour transition (as PasskeyButton): an
  // accessibility check sampling the button mid-fade would measure a contrast it never rests at.
  const hydrated = useHydrated();
  return (
    <div className="mt-3 rounded-box bg-neutral text-neutral-content" data-curl-example>
      <div className="flex justify-end p-2 pb-0">
        <button
          type="button"
          className="btn btn-sm transition-none"
          onClick={copy}
          disabled={!hydrated}
          aria-label={copied ? undefined : T.copyCommand}
        >
          {copied ? TOKEN_TEXT.copied : TOKEN_TEXT.copy}
        </button>
      </div>
      <pre className="whitespace-pre-wrap px-4 pb-4 text-xs wrap-anywhere">
        <code ref={codeRef}>
          {lines.map((line) => (
            // A wrapped line's continuation hangs one step in, so it does not read as a new line.
            <span key={line} className="block ps-6 -indent-6">
              {breakAfterSlashes(line)}
            </span>
          ))}
        </code>
      </pre>
    </div>
  );
}

const T = API_KEYS_TEXT;

/** A URL may wrap after any "/" (a <wbr>, nothing copied) rather than mid-word. */
function breakAfterSlashes(line: string) {
  return line.split(/(?<=\/)/).map((part, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed line, never reordered
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}
