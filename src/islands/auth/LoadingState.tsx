// The "checking" state (a spinner and a status line) of the islands that show one first.
export function LoadingState({ message }: { message: string }) {
  return (
    <div className="flex flex-col items-center gap-4 py-6 text-center" data-loading-state>
      <span className="loading loading-spinner loading-lg text-primary" aria-hidden="true" />
      <p role="status" className="text-base-content/80">
        {message}
      </p>
    </div>
  );
}
