// The recovery codes, shown once after two-factor sign-in is turned on or new codes are made: a
// list to write down, a copy button and a download, and "I have saved them" to close.
import { SECURITY_TEXT } from "../../lib/security-text.ts";
import { TOAST } from "../../lib/ui-text.ts";
import { notify } from "../../stores/toast.ts";

const T = SECURITY_TEXT.twoFactor;

export function RecoveryCodes({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  const text = codes.join("\n");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      notify("success", TOAST.copied);
    } catch {
      notify("error", T.copyFailed);
    }
  };
  // A data: URL rather than a blob: nothing to revoke when the codes are put away.
  const download = `data:text/plain;charset=utf-8,${encodeURIComponent(`${text}\n`)}`;
  return (
    <section
      className="rounded-box border border-warning/60 bg-warning/10 p-4"
      aria-labelledby="codes-title"
      data-recovery-codes
    >
      <h3 id="codes-title" className="font-semibold">
        {T.codesTitle}
      </h3>
      <p className="mt-1 text-sm">{T.codesBody}</p>
      <ul
        className="mt-3 grid grid-cols-2 gap-x-6 gap-y-1 font-mono text-sm sm:grid-cols-2"
        aria-label={T.codesTitle}
      >
        {codes.map((code) => (
          <li key={code} data-recovery-code>
            {code}
          </li>
        ))}
      </ul>
      <div className="mt-4 flex flex-wrap gap-2">
        <button type="button" className="btn btn-sm" onClick={() => void copy()}>
          {T.copyCodes}
        </button>
        <a className="btn btn-sm" href={download} download="recovery-codes.txt">
          {T.downloadCodes}
        </a>
        <button type="button" className="btn btn-primary btn-sm" onClick={onDone} data-codes-saved>
          {T.codesSaved}
        </button>
      </div>
    </section>
  );
}
