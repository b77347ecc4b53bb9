// What a catalogue list shows until its answer is there: a spinner with what is loading, or the
// spec's load error once the read has failed for good (retries spent).
import { ERROR_TEXT } from "../../lib/ui-text.ts";

export function CatalogueStatus({ failed, loading }: { failed: boolean; loading: string }) {
  if (failed) {
    return (
      <p role="alert" className="alert alert-error text-sm">
        {ERROR_TEXT.loadFailed}
      </p>
    );
  }
  return (
    <p role="status" className="flex items-center gap-2 text-sm">
      <span className="loading loading-spinner" aria-hidden="true" />
      {loading}
    </p>
  );
}
