import nodemailer from "nodemailer";
import { describe, expect, it } from "vitest";
import { extractLinks, parseMail } from "./mime.ts";

async function compose(message: { subject: string; text: string; html?: string; to?: string }) {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const info = await transport.sendMail({
    from: "AI Studio <no-reply@example.com>",
    to: message.to ?? "ann@example.com",
    date: new Date("2026-11-23T10:00:00Z"),
    ...message,
  });
  return (info.message as Buffer).toString("utf8");
}

describe("reading the mails nodemailer writes", () => {
  it("finds the text and HTML parts and the headers", async () => {
    const mail = await parseMail(
      await compose({ subject: "Hello", text: "Plain body https://portal.test/a", html: "<p>Hi</p>" }),
    );
    expect(mail).toEqual({
      to: "ann@example.com",
      from: "AI Studio <no-reply@example.com>",
      subject: "Hello",
      date: new Date("2026-11-23T10:00:00Z"),
      text: "Plain body https://portal.test/a",
      html: "<p>Hi</p>",
    });
  });

  it("decodes non-ASCII subjects and bodies, and long quoted-printable lines with links", async () => {
    const long = `https://portal.test/verify-email/${"A".repeat(43)}`;
    const text = `Grüße, Zoë — ${"very long line ".repeat(10)}\n${long}\n`;
    const mail = await parseMail(
      await compose({
        subject: "Bestätigen Sie Ihre Adresse ✓",
        text,
        html: "<p>Grüße</p>",
        to: "Zoë <zoe@example.com>",
      }),
    );
    expect(mail.subject).toBe("Bestätigen Sie Ihre Adresse ✓");
    expect(mail.to).toBe("Zoë <zoe@example.com>");
    expect(mail.text).toBe(text);
    expect(mail.html).toBe("<p>Grüße</p>");
    expect(extractLinks(mail.text ?? "")).toEqual([long]);
  });

  it("reads a text-only mail without inventing an HTML part, and a mail with no date", async () => {
    const raw = (await compose({ subject: "Plain", text: "Only text" })).replace(/^Date: .*\n/m, "");
    const mail = await parseMail(raw);
    expect(mail.text?.trim()).toBe("Only text");
    expect(mail.html).toBeUndefined();
    expect(mail.date).toBeUndefined();
  });

  it("extracts each http(s) link once, without trailing punctuation, and nothing else", () => {
    expect(extractLinks("go https://a.test/x, then http://b.test/y. mailto:c@d.e https://a.test/x")).toEqual([
      "https://a.test/x",
      "http://b.test/y",
    ]);
  });
});
