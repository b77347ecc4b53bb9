// Sends the account mails through nodemailer: into the outbox (default, development) or over SMTP
// (SMTP_URL). Callers hand messages to send() from background tasks, never in a request's path.
// Neither transport is handed a mail to a domain that never receives mail (dropReservedRecipients).
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Logger } from "pino";
import { isReservedAddress } from "../auth/mailbox.ts";
import type { Clock } from "../clock.ts";
import type { MailMessage } from "./message.ts";
import { extractLinks } from "./mime.ts";
import { writeOutboxMessage } from "./outbox.ts";

export interface Mailer {
  readonly transport: "outbox" | "smtp";
  /** Resolves when the message is written to the outbox or accepted by the SMTP server. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Whether `to` names an address in a top-level domain that never receives mail, `.invalid` or
 * `.localhost` (auth/mailbox.ts): read as a list, each address bare or in `Name <…>`, a trailing
 * dot of the domain ignored.
 */
export function namesReservedAddress(to: string): boolean {
  return to.split(",").some((part) => {
    const address = (/<([^>]*)>/.exec(part)?.[1] ?? part).trim().replace(/\.+$/, "");
    return isReservedAddress(address);
  });
}

/**
 * The last line before a transport: a mail to a domain that never receives mail is dropped, logged
 * and never handed on, whoever queued it. A deleted account's address is such a pseudonym
 * (`deleted~<id>@deleted.invalid`, accounts/account-deletion.ts): a mail that still finds it after
 * the erasure (a late payment's receipt, say) must reach nobody, and its recipients are chosen so
 * it does not (decision 021, "Mails after the erasure"); an SMTP relay would bounce it, or look the
 * reserved name up. Resolves as a send does: nothing is retried.
 */
function dropReservedRecipients(
  send: (message: MailMessage) => Promise<void>,
  logger: Logger,
): (message: MailMessage) => Promise<void> {
  return async (message) => {
    if (namesReservedAddress(message.to)) {
      logger.warn(
        { to: message.to, subject: message.subject },
        "Mail dropped, not sent: addressed to a domain that never receives mail",
      );
      return;
    }
    await send(message);
  };
}

/** The sender's fields of every message: From, and Reply-To when replies go elsewhere. */
function senderFields(from: string, replyTo: string | undefined) {
  return replyTo ? { from, replyTo } : { from };
}

export interface OutboxMailerOptions {
  dir: string;
  from: string;
  /** The support mailbox replies go to (MAIL_REPLY_TO); unset: replies go to `from`. */
  replyTo?: string | undefined;
  clock: Clock;
  logger: Logger;
  /**
   * Print each message's links in the log, so a developer can click through without opening the
   * outbox. Off outside development: the links carry live tokens.
   */
  logLinks: boolean;
}

export function createOutboxMailer(options: OutboxMailerOptions): Mailer {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    transport: "outbox",
    send: dropReservedRecipients(async (message) => {
      const info = await transporter.sendMail({ ...senderFields(options.from, options.replyTo), ...message });
      const id = await writeOutboxMessage(options.dir, info.message as Buffer, options.clock.now());
      if (options.logLinks) {
        options.logger.info(
          { outbox: join(options.dir, `${id}.eml`), to: message.to, links: extractLinks(message.text) },
          `Mail "${message.subject}" written to the outbox; see /_dev/mail`,
        );
      }
    }, options.logger),
    close: () => transporter.close(),
  };
}

export interface SmtpMailerOptions {
  url: string;
  from: string;
  /** The support mailbox replies go to (MAIL_REPLY_TO); unset: replies go to `from`. */
  replyTo?: string | undefined;
  /** In production a plain smtp:// connection to another host must upgrade to TLS (STARTTLS). */
  requireTls: boolean;
}

function isLocalHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
}

export function smtpTransportOptions(options: SmtpMailerOptions) {
  const url = new URL(options.url);
  const secure = url.protocol === "smtps:";
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && options.requireTls && !isLocalHost(url.hostname),
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

export function createSmtpMailer(options: SmtpMailerOptions & { logger: Logger }): Mailer {
  const transporter = nodemailer.createTransport(smtpTransportOptions(options));
  return {
    transport: "smtp",
    send: dropReservedRecipients(async (message) => {
      await transporter.sendMail({ ...senderFields(options.from, options.replyTo), ...message });
    }, options.logger),
    close: () => transporter.close(),
  };
}

export interface MailerConfig {
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_REPLY_TO?: string | undefined;
  NODE_ENV: "development" | "test" | "production";
  dataDir: string;
}

export function outboxDir(dataDir: string): string {
  return join(dataDir, "outbox");
}

export function createMailer(config: MailerConfig, clock: Clock, logger: Logger): Mailer {
  if (config.SMTP_URL) {
    return createSmtpMailer({
      url: config.SMTP_URL,
      from: config.MAIL_FROM,
      replyTo: config.MAIL_REPLY_TO,
      requireTls: config.NODE_ENV === "production",
      logger,
    });
  }
  return createOutboxMailer({
    dir: outboxDir(config.dataDir),
    from: config.MAIL_FROM,
    replyTo: config.MAIL_REPLY_TO,
    clock,
    logger,
    logLinks: config.NODE_ENV === "development",
  });
}
