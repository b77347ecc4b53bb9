import { describe, expect, it } from "vitest";
import { createLogger, serializeError } from "./logger.ts";

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ level: "info" }, { write: (line: string) => void lines.push(line) });
  return { logger, output: () => lines.join("") };
}

describe("logs", () => {
  it("redact passwords, tokens, hashes and Authorization headers wherever they appear", () => {
    const { logger, output } = capture();
    logger.info(
      {
        password: "Abcdef1!",
        body: { confirmPassword: "Abcdef1!", token: "mailed-token-value" },
        access_token: "eyJ.header.sig",
        user: { passwordHash: "$argon2id$v=19$m=19456" },
        req: { headers: { authorization: "Bearer eyJ.header.sig" } },
      },
      "something happened",
    );
    const text = output();
    for (const secret of ["Abcdef1!", "mailed-token-value", "eyJ.header.sig", "$argon2id$"])
      expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
  });

  it("log a failed query without its parameters or the row values PostgreSQL quotes", () => {
    const cause = Object.assign(
      new Error('duplicate key value violates unique constraint "users_email_lower_key"'),
      {
        code: "23505",
        constraint_name: "users_email_lower_key",
        detail: "Key (lower(email))=(ann@example.com) already exists.",
      },
    );
    const error = Object.assign(
      new Error('Failed query: insert into "users" ...\nparams: id,ann,ann@example.com,$argon2id$v=19$abc'),
      {
        query: 'insert into "users" ("id", "email", "password_hash") values ($1, $2, $3)',
        params: ["id", "ann@example.com", "$argon2id$v=19$abc"],
        cause,
      },
    );
    const serialized = JSON.stringify(serializeError(error));
    expect(serialized).not.toContain("$argon2id$");
    expect(serialized).not.toContain("ann@example.com");
    expect(serialized).toContain("23505");
    expect(serialized).toContain("users_email_lower_key");
    expect(serialized).toContain('insert into \\"users\\"');
  });

  it("keep an ordinary error's message and stack", () => {
    expect(serializeError(new TypeError("boom"))).toMatchObject({
      type: "TypeError",
      message: "boom",
      stack: expect.any(String),
    });
  });
});
