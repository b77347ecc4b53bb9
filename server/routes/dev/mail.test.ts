import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { register } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { createTestApp } from "../../testing/test-app.ts";
import { DEV_MAIL_CSP, devMailPage } from "./mail.ts";

describe.each(TEST_DATABASES)("development mail pages (%s)", (kind) => {
  const ctx = useTestApp(kind);

  it("/_dev/mail.json lists the outbox newest first, with clickable links", async () => {
    await register(ctx.t, "ann");
    await register(ctx.t, "bob");
    await ctx.t.tasks.idle();
    const res = await ctx.t.app.request("/_dev/mail.json");
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: { to: string; subject: string; links: string[]; id: string }[];
    };
    expect(data.map((m) => m.to)).toEqual(["bob@example.com", "ann@example.com"]);
    expect(data[0]?.links[0]).toMatch(/^https:\/\/portal\.test\/verify-email\//);
  });

  it("/_dev/mail shows every message with its links as anchors, under a policy that allows no script", async () => {
    await register(ctx.t, "ann");
    await ctx.t.tasks.idle();
    const res = await ctx.t.app.request("/_dev/mail");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(DEV_MAIL_CSP);
    expect(DEV_MAIL_CSP).not.toContain("script-src");
    const html = await res.text();
    expect(html).toContain("ann@example.com");
    expect(html).toMatch(/<a href="https:\/\/portal\.test\/verify-email\/[A-Za-z0-9_-]{43}">/);
    // The one inline stylesheet is the one the policy's hash allows.
    const style = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
    expect(DEV_MAIL_CSP).toContain(`'sha256-${createHash("sha256").update(style).digest("base64")}'`);
  });

  it("/_dev/mail/{id} shows the raw message; unknown or crafted ids are 404", async () => {
    await register(ctx.t, "ann");
    await ctx.t.tasks.idle();
    const { data } = (await (await ctx.t.app.request("/_dev/mail.json")).json()) as {
      data: { id: string }[];
    };
    const raw = await ctx.t.app.request(`/_dev/mail/${data[0]?.id}`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await raw.text()).toMatch(/^Content-Type: multipart\/alternative/m);
    for (const id of ["nope", "..%2F..%2Fjwt-secret", "%2e%2e"]) {
      expect((await ctx.t.app.request(`/_dev/mail/${id}`)).status).toBe(404);
    }
  });

  it("does not exist in production, nor where the configuration turns the pages off", async () => {
    const production = createTestApp(ctx.database.db, { nodeEnv: "production" });
    // What loadConfig decides for development on HOST=0.0.0.0 (env.test.ts).
    const exposed = createTestApp(ctx.database.db, { nodeEnv: "development", devPages: false });
    for (const app of [production.app, exposed.app]) {
      for (const path of ["/_dev/mail", "/_dev/mail.json", "/_dev/billing"]) {
        expect((await app.request(path)).status).toBe(404);
      }
    }
  });
});

describe("the outbox page", () => {
  it("escapes everything it shows", () => {
    const html = devMailPage(
      [
        {
          id: "x",
          to: "<script>alert(1)</script>",
          from: "",
          subject: '"><img src=x>',
          date: "",
          text: "",
          links: ['https://a.test/"x'],
        },
      ],
      "outbox",
    );
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain('"><img');
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain('href="https://a.test/&quot;x"');
  });

  it("says when mail goes out through SMTP instead", () => {
    expect(devMailPage([], "smtp")).toContain("SMTP_URL");
  });
});
