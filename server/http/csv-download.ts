// A CSV answered as a file the browser saves: the same two headers for every download.
import type { Context } from "hono";

export function csvDownload(
  c: Context,
  body: string | ReadableStream<Uint8Array>,
  filename: string,
): Response {
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${filename}"`,
  });
}
