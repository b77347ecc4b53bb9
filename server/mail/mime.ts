// Reading the mails the outbox holds, with mailparser (the nodemailer authors' parser): headers with
// encoded words, multipart bodies, quoted-printable and base64, charsets. extractLinks is ours: the
// outbox and the mail log list the links a message carries.
import { type AddressObject, simpleParser } from "mailparser";

export interface ParsedMail {
  to: string;
  from: string;
  subject: string;
  /** When the message says it was written; undefined without a readable Date header. */
  date: Date | undefined;
  text: string | undefined;
  html: string | undefined;
}

/** "Zoë <zoe@example.com>, bob@example.com": names as written, unquoted, for the outbox list. */
const addresses = (value: AddressObject | AddressObject[] | undefined): string =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((list) => list.value)
    .map(({ name, address = "" }) => (name ? `${name} <${address}>` : address))
    .join(", ");

export async function parseMail(raw: string | Buffer): Promise<ParsedMail> {
  // The text part as written: no generated HTML for text-only mails, no rewriting of links.
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
  return {
    to: addresses(mail.to),
    from: addresses(mail.from),
    subject: mail.subject ?? "",
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : undefined,
    text: mail.text,
    html: typeof mail.html === "string" ? mail.html : undefined,
  };
}

/** The http(s) links in a text part, each once, without trailing punctuation. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map((l) => l.replace(/[.,;:!?]+$/, ""));
  return [...new Set(links)];
}
