// The SMTP transport against a real SMTP server (smtp-server) on a random local port.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { createSmtpMailer, smtpTransportOptions } from "./mailer.ts";
import { extractLinks, parseMail } from "./mime.ts";
import { verificationMail } from "./templates.ts";

interface Received {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

describe("SMTP transport", () => {
  const received: Received[] = [];
  const logs: string[] = [];
  const logger = createLogger({ level: "info" }, { write: (line: string) => void logs.push(line) });
  let server: SMTPServer;
  let port = 0;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === "mailer" && auth.password === "p@ss word")
          callback(null, { user: auth.username });
        else callback(new Error("Invalid username or password"));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            raw: Buffer.concat(chunks).toString("utf8"),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });

  /** A mailer that signs in to the test server with the right password. */
  const signedInMailer = () =>
    createSmtpMailer({
      url: `smtp://mailer:${encodeURIComponent("p@ss word")}@127.0.0.1:${port}`,
      from: '"AI Studio" <no-reply@portal.test>',
      requireTls: false,
      logger,
    });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("delivers a verification mail with authentication, a text and an HTML part", async () => {
    const mailer = signedInMailer();
    const token = "t".repeat(43);
    await mailer.send(
      verificationMail({ to: "ann@example.com", username: "ann", portalUrl: "https://portal.test", token }),
    );
    mailer.close();

    const mail = received.at(-1);
    expect(mail).toMatchObject({ from: "no-reply@portal.test", to: ["ann@example.com"], user: "mailer" });
    const parsed = await parseMail(mail?.raw ?? "");
    expect(extractLinks(parsed.text ?? "")).toEqual([`https://portal.test/verify-email/${token}`]);
    expect(parsed.html).toContain(`href="https://portal.test/verify-email/${token}"`);
  });

  it("names the support mailbox as Reply-To when one is set", async () => {
    const mailer = createSmtpMailer({
      url: `smtp://mailer:${encodeURIComponent("p@ss word")}@127.0.0.1:${port}`,
      from: '"AI Studio" <no-reply@portal.test>',
      replyTo: "support@portal.test",
      requireTls: false,
      logger,
    });
    await mailer.send({ to: "ann@example.com", subject: "x", text: "x", html: "<p>x</p>" });
    mailer.close();
    const raw = received.at(-1)?.raw ?? "";
    expect(raw).toMatch(/^Reply-To: support@portal\.test\r?$/m);
    expect(raw).toMatch(/^From: AI Studio <no-reply@portal\.test>\r?$/m);
  });

  it("fails (for the caller to log) when the server refuses the login", async () => {
    const mailer = createSmtpMailer({
      url: `smtp://mailer:wrong@127.0.0.1:${port}`,
      from: "no-reply@portal.test",
      requireTls: false,
      logger,
    });
    await expect(
      mailer.send({ to: "ann@example.com", subject: "x", text: "x", html: "<p>x</p>" }),
    ).rejects.toThrow(/Invalid username or password|auth/i);
    mailer.close();
  });

  it("never hands the server a mail to a domain that never receives mail: drops and logs it", async () => {
    const mailer = signedInMailer();
    const before = received.length;
    await mailer.send({ to: "deleted~x@deleted.invalid", subject: "x", text: "x", html: "<p>x</p>" });
    await mailer.send({ to: "ann@example.com", subject: "y", text: "y", html: "<p>y</p>" });
    mailer.close();
    expect(received.slice(before).map((m) => m.to)).toEqual([["ann@example.com"]]);
    expect(logs.join("")).toContain("Mail dropped, not sent: addressed to a domain that never receives mail");
  });

  it("insists on TLS in production for a remote smtp:// server, not for a local relay or smtps://", () => {
    expect(
      smtpTransportOptions({ url: "smtp://u:p@smtp.example.com:587", from: "x", requireTls: true }),
    ).toMatchObject({
      host: "smtp.example.com",
      port: 587,
      secure: false,
      requireTLS: true,
      auth: { user: "u", pass: "p" },
    });
    expect(smtpTransportOptions({ url: "smtp://localhost:25", from: "x", requireTls: true })).toMatchObject({
      requireTLS: false,
      auth: undefined,
    });
    expect(
      smtpTransportOptions({ url: "smtps://smtp.example.com", from: "x", requireTls: true }),
    ).toMatchObject({
      port: 465,
      secure: true,
      requireTLS: false,
    });
  });
});
