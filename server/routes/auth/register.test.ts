import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DETAIL, VALIDATION } from "../../../contract/messages.ts";
import { TEST_DATABASES } from "../../../tests/fixtures/test-db.ts";
import { users } from "../../db/schema/index.ts";
import { fromIp, GOOD_PASSWORD, latestMailTo, postJson, registration } from "../../testing/api-client.ts";
import { useTestApp } from "../../testing/suite.ts";
import { TEST_PORTAL_URL } from "../../testing/test-app.ts";

describe.each(TEST_DATABASES)("POST /v1/register (%s)", (kind) => {
  const ctx = useTestApp(kind);
  const post = (body: unknown, headers: Record<string, string> = fromIp()) =>
    postJson(ctx.t.app, "/v1/register", body, headers);

  it("creates the account (201 {id, username, email}) and mails a verification link", async () => {
    // The address is trimmed before it is checked; a JSON Schema pattern cannot say "after trimming".
    ctx.outsideDocument(
      "an e-mail address with spaces around it",
      (broken) =>
        broken.operation.startsWith("POST /v1/register ") && broken.rule.includes("/requestBody/email"),
    );
    const res = await post(registration("ann", { email: "  Ann.Smith@Example.COM " }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: "ann",
      email: "Ann.Smith@example.com",
    });

    const { mail, link, token } = await latestMailTo(ctx.t, "Ann.Smith@example.com");
    expect(mail.subject).toMatch(/verify/i);
    expect(link).toBe(`${TEST_PORTAL_URL}/verify-email/${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("422 next to the e-mail for a disposable-mail address, and no account", async () => {
    for (const email of ["ann@mailinator.com", "ann@eu.Mailinator.com"]) {
      const res = await post(registration("ann", { email }));
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "email"], msg: VALIDATION.emailDisposable, type: "value_error" }],
      });
    }
    expect(await ctx.database.db.select().from(users)).toEqual([]);
    expect(await ctx.t.mails()).toEqual([]);
  });

  // Security review, MEDIUM 3: `<id>@deleted.invalid` was a deleted account's address, and anyone
  // could register it to block that account's deletion. No mail reaches these domains anyway.
  it("422 next to the e-mail for a domain that never receives mail (.invalid, .localhost), and no account", async () => {
    for (const email of [
      "0b5c7a3e-2f7d-4c1e-9a55-3f1f0d6b8c21@deleted.invalid",
      "ann@Example.INVALID",
      "ann@mail.localhost",
    ]) {
      const res = await post(registration("ann", { email }));
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ["body", "email"], msg: VALIDATION.emailReserved, type: "value_error" }],
      });
    }
    expect(await ctx.database.db.select().from(users)).toEqual([]);
    expect(await ctx.t.mails()).toEqual([]);
    // The documentation and test domains stay open: test servers register them.
    expect((await post(registration("ann", { email: "ann@acme.test" }))).status).toBe(201);
    expect((await post(registration("bob", { email: "bob@invalid.example" }))).status).toBe(201);
  });

  it("stores an argon2id hash, never the password", async () => {
    await post(registration("ann"));
    const [row] = await ctx.database.db.select().from(users).where(eq(users.username, "ann"));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.passwordHash).not.toContain(GOOD_PASSWORD);
    expect(row).toMatchObject({ role: "user", emailVerified: false, tokenVersion: 0 });
  });

  it("ignores unknown fields (no self-made admins) and any Authorization header", async () => {
    const res = await post(registration("ann", { role: "admin", email_verified: true }), {
      ...fromIp(),
      Authorization: "Bearer not-a-token",
    });
    expect(res.status).toBe(201);
    const [row] = await ctx.database.db.select().from(users);
    expect(row).toMatchObject({ role: "user", emailVerified: false });
  });

  it.each([
    ["the same address", { email: "ann@example.com", username: "other" }, DETAIL.emailExists],
    ["the address in other case", { email: "ANN@EXAMPLE.COM", username: "other" }, DETAIL.emailExists],
    [
      "the same username in other case",
      { email: "other@example.com", username: "ANN" },
      DETAIL.usernameExists,
    ],
  ])("400 for %s", async (_label, overrides, detail) => {
    expect((await post(registration("ann"))).status).toBe(201);
    const res = await post(registration("x", overrides));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail });
  });

  it("lets two racing registrations of one username end in 201 and 400, never 500", async () => {
    const [a, b] = await Promise.all([
      post(registration("ann", { email: "a1@example.com" })),
      post(registration("ann", { email: "a2@example.com" })),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
    const loser = a.status === 400 ? a : b;
    expect(await loser.json()).toEqual({ detail: DETAIL.usernameExists });
  });

  it.each([
    ["email", "", VALIDATION.emailRequired],
    ["email", "not-an-email", VALIDATION.emailInvalid],
    ["username", "", VALIDATION.usernameRequired],
    ["username", "a b", VALIDATION.usernameInvalid],
    ["password", "", VALIDATION.passwordRequired],
    ["password", "Abc1!", VALIDATION.passwordTooShort],
    ["password", "Abcdefghij1!Abcdefghij1!Abcdefg", VALIDATION.passwordTooLong],
    ["password", "abcdef1!", VALIDATION.passwordUppercase],
    ["password", "ABCDEF1!", VALIDATION.passwordLowercase],
    ["password", "Abcdefg!", VALIDATION.passwordNumber],
    ["password", "Abcdefg1", VALIDATION.passwordSpecial],
    ["confirmPassword", "", VALIDATION.confirmPasswordRequired],
    ["confirmPassword", "Abcdef1?", VALIDATION.passwordsMustMatch],
  ])("422 when %s is %j: %s", async (field, value, msg) => {
    const body = registration("ann", { [field]: value });
    if (field === "password") body.confirmPassword = value || GOOD_PASSWORD;
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ["body", field], msg, type: "value_error" }] });
  });

  it("422 lists every field's error at once, the password mismatch included", async () => {
    const res = await post({ email: "not-an-email", username: "", password: "abc", confirmPassword: "abd" });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
    expect(detail.map(({ loc, msg }) => [loc[1], msg])).toEqual([
      ["email", VALIDATION.emailInvalid],
      ["username", VALIDATION.usernameRequired],
      ["password", VALIDATION.passwordTooShort],
      ["password", VALIDATION.passwordUppercase],
      ["password", VALIDATION.passwordNumber],
      ["password", VALIDATION.passwordSpecial],
      ["confirmPassword", VALIDATION.passwordsMustMatch],
    ]);
  });

  it("422 lists every missing field", async () => {
    const res = await post({});
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      detail: [
        { loc: ["body", "email"], msg: VALIDATION.emailRequired, type: "missing" },
        { loc: ["body", "username"], msg: VALIDATION.usernameRequired, type: "missing" },
        { loc: ["body", "password"], msg: VALIDATION.passwordRequired, type: "missing" },
        { loc: ["body", "confirmPassword"], msg: VALIDATION.confirmPasswordRequired, type: "missing" },
      ],
    });
  });

  it.each([
    ["broken JSON", { "Content-Type": "application/json" }, '{"email": '],
    ["an empty body", { "Content-Type": "application/json" }, ""],
    ["a JSON array", { "Content-Type": "application/json" }, "[]"],
    ["JSON null", { "Content-Type": "application/json" }, "null"],
    ["a JSON string", { "Content-Type": "application/json" }, '"ann"'],
    ["a form", { "Content-Type": "application/x-www-form-urlencoded" }, "email=a%40b.co"],
    ["no content type", {}, JSON.stringify(registration("ann"))],
  ])("422, never 500, for %s", async (_label, headers, body) => {
    const res = await ctx.t.app.request("/v1/register", {
      method: "POST",
      headers: { ...headers, ...fromIp() },
      body,
    });
    expect(res.status).toBe(422);
    const json = (await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
    expect(json.detail).toEqual([
      expect.objectContaining({ loc: ["body"], msg: expect.any(String), type: expect.any(String) }),
    ]);
  });

  it("accepts a JSON content type with a charset", async () => {
    const res = await post(registration("ann"), {
      "Content-Type": "application/json; charset=utf-8",
      ...fromIp(),
    });
    expect(res.status).toBe(201);
  });

  it("413 for a body over 64 KB", async () => {
    const res = await post(registration("ann", { padding: "x".repeat(70_000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: DETAIL.bodyTooLarge });
  });

  it("limits registrations to 5 a minute per address (429 with Retry-After)", async () => {
    const ip = fromIp();
    for (let i = 0; i < 5; i++) expect((await post(registration(`user${i}`), ip)).status).toBe(201);
    const limited = await post(registration("user5"), ip);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({ detail: DETAIL.tooManyRequests });
    expect((await post(registration("user6"))).status).toBe(201);
  });
});
