// What a section of the security page says while its data loads, or when it could not be loaded.
export function LoadStatus({ status, loading, failed }: { status: string; loading: string; failed: string }) {
  if (status === "loading") {
    return (
      <p className="flex items-center gap-2 text-sm" role="status">
        <span className="loading loading-spinner loading-sm" aria-hidden="true" />
        {loading}
      </p>
    );
  }
  if (status === "failed") {
    return (
      <p role="alert" className="text-sm">
        {failed}
      </p>
    );
  }
  return null;
}
