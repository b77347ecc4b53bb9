// A button that downloads a file through the API (the usage CSV, an invoice's PDF): busy while the
// file comes, and a toast when it fails, so a click never ends in silence.
import { useState } from "react";
import { notify } from "../../stores/toast.ts";

export interface DownloadButtonProps {
  /** Fetches the file and hands it to the browser; throws on failure. */
  download: () => Promise<void>;
  label: string;
  busyLabel: string;
  failedMessage: string;
  className?: string;
}

export function DownloadButton({
  download,
  label,
  busyLabel,
  failedMessage,
  className = "btn btn-outline btn-sm",
}: DownloadButtonProps) {
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    try {
      await download();
    } catch {
      notify("error", failedMessage);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className={className} onClick={() => void start()} disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}
