// Sends the account mails through nodemailer: into the outbox (default, development) or over SMTP
// (SMTP_URL). Callers hand messages to send() from background tasks, never in a request's path.
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Logger } from "pino";
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

export interface OutboxMailerOptions {
  dir: string;
  from: string;
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
    async send(message) {
      const info = await transporter.sendMail({ from: options.from, ...message });
      const id = await writeOutboxMessage(options.dir, info.message as Buffer, options.clock.now());
      if (options.logLinks) {
        options.logger.info(
          { outbox: join(options.dir, `${id}.eml`), to: message.to, links: extractLinks(message.text) },
          `Mail "${message.subject}" written to the outbox; see /_dev/mail`,
        );
      }
    },
    close: () => transporter.close(),
  };
}

export interface SmtpMailerOptions {
  url: string;
  from: string;
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

export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const transporter = nodemailer.createTransport(smtpTransportOptions(options));
  return {
    transport: "smtp",
    async send(message) {
      await transporter.sendMail({ from: options.from, ...message });
    },
    close: () => transporter.close(),
  };
}

export interface MailerConfig {
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
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
      requireTls: config.NODE_ENV === "production",
    });
  }
  return createOutboxMailer({
    dir: outboxDir(config.dataDir),
    from: config.MAIL_FROM,
    clock,
    logger,
    logLinks: config.NODE_ENV === "development",
  });
}
