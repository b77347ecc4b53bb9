import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCT_NAME } from "../../contract/brand.ts";
import { ManualClock } from "../clock.ts";
import { createLogger } from "../logger.ts";
import { createOutboxMailer } from "./mailer.ts";
import { isOutboxId, listOutbox, readOutboxRaw } from "./outbox.ts";
import { passwordResetMail, verificationMail } from "./templates.ts";

function setup(logLinks = false, replyTo?: string) {
  const dir = join(mkdtempSync(join(tmpdir(), "outbox-")), "outbox");
  const clock = new ManualClock("2030-05-01T08:00:00Z");
  const logs: string[] = [];
  const logger = createLogger({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const mailer = createOutboxMailer({
    dir,
    from: '"AI Studio" <no-reply@portal.test>',
    replyTo,
    clock,
    logger,
    logLinks,
  });
  return { dir, clock, logs, mailer };
}

const TOKEN = "tok_".padEnd(43, "Z");

describe("the outbox", () => {
  it("sends replies to the support mailbox when one is set, else to the sender", async () => {
    const mail = verificationMail({
      to: "ann@example.com",
      username: "ann",
      portalUrl: "https://portal.test",
      token: TOKEN,
    });
    const withSupport = setup(false, '"AI Studio support" <support@portal.test>');
    await withSupport.mailer.send(mail);
    const [sent] = readdirSync(withSupport.dir);
    const raw = (await readOutboxRaw(withSupport.dir, (sent as string).slice(0, -4))) ?? "";
    expect(raw).toMatch(/^Reply-To: AI Studio support <support@portal\.test>$/m);
    expect(raw).toMatch(/^From: AI Studio <no-reply@portal\.test>$/m);
    const plain = setup();
    await plain.mailer.send(mail);
    const [other] = readdirSync(plain.dir);
    expect((await readOutboxRaw(plain.dir, (other as string).slice(0, -4))) ?? "").not.toMatch(/^Reply-To:/m);
  });

  it("writes one .eml per message, private to the owner, with a text and an HTML part", async () => {
    const { dir, mailer } = setup();
    await mailer.send(
      verificationMail({
        to: "ann@example.com",
        username: "ann",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
    const raw = (await readOutboxRaw(dir, (files[0] as string).slice(0, -4))) ?? "";
    expect(raw).toMatch(/^Content-Type: multipart\/alternative/m);
    expect(raw).toMatch(/^Content-Type: text\/plain/m);
    expect(raw).toMatch(/^Content-Type: text\/html/m);
  });

  it("lists messages newest first, with recipient, subject, time and links", async () => {
    const { dir, mailer, clock } = setup();
    await mailer.send(
      verificationMail({
        to: "ann@example.com",
        username: "ann",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    clock.advance(1000);
    await mailer.send(
      passwordResetMail({
        to: "bob@example.com",
        username: "bob",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    const entries = await listOutbox(dir);
    expect(entries.map((e) => e.to)).toEqual(["bob@example.com", "ann@example.com"]);
    expect(entries[0]).toMatchObject({
      from: "AI Studio <no-reply@portal.test>",
      subject: `Reset your ${PRODUCT_NAME} password`,
      links: [`https://portal.test/reset-password/${TOKEN}`],
    });
    expect(entries[1]?.links).toEqual([`https://portal.test/verify-email/${TOKEN}`]);
    expect(entries.every((e) => isOutboxId(e.id) && e.date !== "")).toBe(true);
  });

  it("is empty, not an error, before the first mail", async () => {
    expect(await listOutbox(join(tmpdir(), "no-such-outbox-dir"))).toEqual([]);
  });

  it("ignores files it did not write and refuses ids that are not its own", async () => {
    const { dir, mailer } = setup();
    await mailer.send(
      verificationMail({
        to: "ann@example.com",
        username: "ann",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    writeFileSync(join(dir, "notes.eml"), "Subject: stray\n\nhello");
    expect(await listOutbox(dir)).toHaveLength(1);
    for (const id of ["notes", "../outbox/notes", "..%2Fsecret", ""])
      expect(await readOutboxRaw(dir, id)).toBeUndefined();
  });

  it("logs the links only when asked to (development), never otherwise", async () => {
    const quiet = setup(false);
    await quiet.mailer.send(
      verificationMail({
        to: "a@example.com",
        username: "a",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    expect(quiet.logs.join("")).not.toContain(TOKEN);

    const loud = setup(true);
    await loud.mailer.send(
      verificationMail({
        to: "a@example.com",
        username: "a",
        portalUrl: "https://portal.test",
        token: TOKEN,
      }),
    );
    expect(loud.logs.join("")).toContain(`https://portal.test/verify-email/${TOKEN}`);
  });
});

describe("the last line before a transport", () => {
  // A deleted account's address is `deleted~<id>@deleted.invalid` (account-deletion.ts): whatever
  // queued a mail to it, nobody may be sent it (decision 021, "Mails after the erasure").
  /** A receipt sent to `to` through a fresh outbox: what the outbox holds and what was logged. */
  async function receiptTo(to: string) {
    const { dir, logs, mailer } = setup();
    await mailer.send({ to, subject: "Your receipt", text: "x", html: "<p>x</p>" });
    return { written: (await listOutbox(dir)).map((e) => e.subject), logs };
  }

  it.each([
    "deleted~0b5c7a8e-2f1d-4c3b-9a7e-6d5f4e3c2b1a@deleted.invalid",
    "0b5c7a8e-2f1d-4c3b-9a7e-6d5f4e3c2b1a@DELETED.INVALID",
    "ann@invalid",
    "ann@mail.localhost",
    "root@localhost",
    "ann@deleted.invalid.",
    '"Ann" <ann@deleted.invalid>',
    "bob@example.com, ann@deleted.invalid",
  ])("drops a mail to %s, logs it and writes nothing", async (to) => {
    const { written, logs } = await receiptTo(to);
    expect(written).toEqual([]);
    const line = JSON.parse(logs.find((l) => l.includes("Mail dropped")) ?? "{}");
    expect(line).toMatchObject({
      level: 40,
      to,
      subject: "Your receipt",
      msg: "Mail dropped, not sent: addressed to a domain that never receives mail",
    });
  });

  it.each([
    "ann@example.com",
    "ann@invalid.example.com",
    "ann@localhost.example",
    '"x.invalid" <ann@example.com>',
    "ann@acme.test",
  ])("sends a mail to %s", async (to) => {
    const { written, logs } = await receiptTo(to);
    expect(written).toEqual(["Your receipt"]);
    expect(logs.join("")).not.toContain("Mail dropped");
  });
});

describe("mail templates", () => {
  it("escape what the user chose in the HTML part", () => {
    const mail = verificationMail({
      to: "a@example.com",
      username: "<b>x</b>",
      portalUrl: "https://portal.test",
      token: TOKEN,
    });
    expect(mail.html).not.toContain("<b>x</b>");
    expect(mail.html).toContain("&lt;b&gt;x&lt;/b&gt;");
  });

  it("build links from the configured portal URL", () => {
    const mail = passwordResetMail({
      to: "a@example.com",
      username: "a",
      portalUrl: "https://cdn.example.net/app",
      token: TOKEN,
    });
    expect(mail.text).toContain(`https://cdn.example.net/app/reset-password/${TOKEN}`);
    expect(mail.html).toContain(`href="https://cdn.example.net/app/reset-password/${TOKEN}"`);
  });
});
