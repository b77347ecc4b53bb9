// Hands a downloaded file to the browser's own download (the usage CSV, an invoice's PDF): the API
// calls need the bearer token, so a plain link cannot fetch them.

/** Saves `blob` under `filename` as the browser saves a download. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  // The click has handed the file to the browser; the URL is not needed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
