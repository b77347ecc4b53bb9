// Just enough MIME reading to list the outbox: header fields (with RFC 2047 encoded words), and the
// text and HTML parts of the multipart messages nodemailer writes (7bit, quoted-printable, base64).
// Not a general mail parser: it only reads what server/mail writes.

export interface ParsedMail {
  headers: Map<string, string>;
  text: string | undefined;
  html: string | undefined;
}

function splitHeadersAndBody(raw: string): { head: string; body: string } {
  const normalised = raw.replace(/\r\n/g, "\n");
  const end = normalised.indexOf("\n\n");
  return end < 0
    ? { head: normalised, body: "" }
    : { head: normalised.slice(0, end), body: normalised.slice(end + 2) };
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  // Unfold continuation lines (RFC 5322 2.2.3).
  for (const line of head.replace(/\n[ \t]+/g, " ").split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

function charsetDecode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset || "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

export function decodeQuotedPrintable(input: string, charset?: string): string {
  const withoutSoftBreaks = input.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < withoutSoftBreaks.length; i++) {
    const ch = withoutSoftBreaks[i] as string;
    const hex = withoutSoftBreaks.slice(i + 1, i + 3);
    if (ch === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of new TextEncoder().encode(ch)) bytes.push(b);
    }
  }
  return charsetDecode(Uint8Array.from(bytes), charset);
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header value. */
export function decodeHeaderValue(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === "B"
        ? charsetDecode(Buffer.from(text, "base64"), charset)
        : decodeQuotedPrintable(text.replace(/_/g, " "), charset),
    );
}

function parameter(headerValue: string | undefined, name: string): string | undefined {
  const match = headerValue?.match(new RegExp(`${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i"));
  return match ? (match[1] ?? match[2]) : undefined;
}

function decodeBody(body: string, headers: Map<string, string>): string {
  const encoding = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  const charset = parameter(headers.get("content-type"), "charset");
  if (encoding === "base64") return charsetDecode(Buffer.from(body.replace(/\s+/g, ""), "base64"), charset);
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body, charset);
  return body;
}

function collectParts(raw: string, into: { text?: string; html?: string }): Map<string, string> {
  const { head, body } = splitHeadersAndBody(raw);
  const headers = parseHeaders(head);
  const type = (headers.get("content-type") ?? "text/plain").toLowerCase();
  if (type.startsWith("multipart/")) {
    const boundary = parameter(headers.get("content-type"), "boundary");
    if (boundary) {
      const sections = body.split(`--${boundary}`);
      // sections[0] is the preamble; the last one starts with "--" (the closing delimiter).
      for (const section of sections.slice(1)) {
        if (section.startsWith("--")) break;
        collectParts(section.replace(/^\n/, "").replace(/\n$/, ""), into);
      }
    }
  } else if (type.startsWith("text/plain") && into.text === undefined) {
    into.text = decodeBody(body, headers);
  } else if (type.startsWith("text/html") && into.html === undefined) {
    into.html = decodeBody(body, headers);
  }
  return headers;
}

export function parseMail(raw: string): ParsedMail {
  const parts: { text?: string; html?: string } = {};
  const headers = collectParts(raw, parts);
  return { headers, text: parts.text, html: parts.html };
}

/** The http(s) links in a text part. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map((l) => l.replace(/[.,;:!?]+$/, ""));
  return [...new Set(links)];
}
