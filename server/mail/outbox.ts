// The development mail stand-in: each message is one .eml file in DATA_DIR/outbox, named so that
// names sort by time. /_dev/mail lists them (server/routes/dev); any mail program opens them.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { extractLinks, parseMail } from "./mime.ts";

export interface OutboxEntry {
  id: string;
  to: string;
  from: string;
  subject: string;
  /** ISO-8601 time the message was written. */
  date: string;
  text: string;
  links: string[];
}

const ID_PATTERN = /^\d{8}T\d{9}Z-\d{6}-[0-9a-f]{8}$/;
let sequence = 0;

/** `20300115T100000123Z-000001-1a2b3c4d`: time first so that names sort by time. */
export function outboxId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:.]/g, "");
  sequence = (sequence + 1) % 1_000_000;
  return `${stamp}-${String(sequence).padStart(6, "0")}-${randomBytes(4).toString("hex")}`;
}

export function isOutboxId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export async function writeOutboxMessage(dir: string, raw: Buffer, at: Date): Promise<string> {
  await mkdir(dir, { recursive: true });
  const id = outboxId(at);
  await writeFile(join(dir, `${id}.eml`), raw, { mode: 0o600 });
  return id;
}

/** The raw message, or undefined for an unknown or malformed id (never a path outside the outbox). */
export async function readOutboxRaw(dir: string, id: string): Promise<string | undefined> {
  if (!isOutboxId(id)) return undefined;
  return readFile(join(dir, `${id}.eml`), "utf8").catch(() => undefined);
}

async function entryFrom(id: string, raw: string): Promise<OutboxEntry> {
  const mail = await parseMail(raw);
  const text = mail.text ?? "";
  return {
    id,
    to: mail.to,
    from: mail.from,
    subject: mail.subject,
    date: mail.date?.toISOString() ?? "",
    text,
    links: extractLinks(text),
  };
}

/** Every message in the outbox, newest first. */
export async function listOutbox(dir: string, limit = 200): Promise<OutboxEntry[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const ids = names
    .filter((n) => n.endsWith(".eml"))
    .map((n) => n.slice(0, -4))
    .filter(isOutboxId)
    .sort()
    .reverse()
    .slice(0, limit);
  const entries: OutboxEntry[] = [];
  for (const id of ids) {
    const raw = await readOutboxRaw(dir, id);
    if (raw !== undefined) entries.push(await entryFrom(id, raw));
  }
  return entries;
}
