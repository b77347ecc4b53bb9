import nodemailer from "nodemailer";
import { describe, expect, it } from "vitest";
import { decodeHeaderValue, decodeQuotedPrintable, extractLinks, parseMail } from "./mime.ts";

async function compose(message: { subject: string; text: string; html: string; to?: string }) {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const info = await transport.sendMail({
    from: "AI Studio <no-reply@example.com>",
    to: message.to ?? "ann@example.com",
    ...message,
  });
  return (info.message as Buffer).toString("utf8");
}

describe("reading the mails nodemailer writes", () => {
  it("finds the text and HTML parts and the headers", async () => {
    const raw = await compose({
      subject: "Hello",
      text: "Plain body https://portal.test/a",
      html: "<p>Hi</p>",
    });
    const mail = parseMail(raw);
    expect(mail.headers.get("subject")).toBe("Hello");
    expect(mail.headers.get("to")).toBe("ann@example.com");
    expect(mail.text?.trim()).toBe("Plain body https://portal.test/a");
    expect(mail.html?.trim()).toBe("<p>Hi</p>");
  });

  it("decodes non-ASCII subjects and bodies, and long quoted-printable lines with links", async () => {
    const long = `https://portal.test/verify-email/${"A".repeat(43)}`;
    const text = `Grüße, Zoë — ${"very long line ".repeat(10)}\n${long}\n`;
    const raw = await compose({
      subject: "Bestätigen Sie Ihre Adresse ✓",
      text,
      html: "<p>Grüße</p>",
      to: "Zoë <zoe@example.com>",
    });
    const mail = parseMail(raw);
    expect(decodeHeaderValue(mail.headers.get("subject") ?? "")).toBe("Bestätigen Sie Ihre Adresse ✓");
    expect(decodeHeaderValue(mail.headers.get("to") ?? "")).toContain("zoe@example.com");
    expect(mail.text).toBe(text);
    expect(extractLinks(mail.text ?? "")).toEqual([long]);
  });

  it("decodes quoted-printable soft breaks and escapes", () => {
    expect(decodeQuotedPrintable("caf=C3=A9 au=\nlait =3D ok")).toBe("café aulait = ok");
  });

  it("extracts each http(s) link once, without trailing punctuation, and nothing else", () => {
    expect(extractLinks("go https://a.test/x, then http://b.test/y. mailto:c@d.e https://a.test/x")).toEqual([
      "https://a.test/x",
      "http://b.test/y",
    ]);
  });
});
