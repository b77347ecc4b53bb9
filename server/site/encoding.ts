// Content negotiation for the build's precompressed copies (written by src/integrations/precompress).

export type Encoding = "br" | "gzip";

/** The file suffix of each encoding's precompressed copy, in the server's order of preference. */
export const ENCODING_SUFFIX: Readonly<Record<Encoding, string>> = { br: ".br", gzip: ".gz" };

/**
 * The encoding to answer with, given the request's Accept-Encoding and the copies there are: the
 * one the client weights highest (q-values, `*`), brotli before gzip on a tie; undefined for the
 * identity (no header, nothing acceptable, or no copy).
 */
export function chooseEncoding(
  acceptEncoding: string | undefined,
  available: readonly Encoding[],
): Encoding | undefined {
  if (!acceptEncoding || available.length === 0) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [token = "", ...params] = part.trim().toLowerCase().split(";");
    const name = token.trim();
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    weights.set(name, Number.isFinite(q) ? q : 0);
  }
  let best: Encoding | undefined;
  let bestQ = 0;
  for (const encoding of (["br", "gzip"] as const).filter((e) => available.includes(e))) {
    const q = weights.get(encoding) ?? weights.get("*") ?? 0;
    if (q > bestQ) {
      best = encoding;
      bestQ = q;
    }
  }
  return best;
}
