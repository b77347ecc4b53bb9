import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createLogger, LOG_CHUNK_BYTES, LOG_FLUSH_MS, serializeError } from "./logger.ts";

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

describe("standard output in chunks", () => {
  // A child process, as main.ts logs: what the parent reads of its standard output.
  const child = (script: string) =>
    spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { chunkedStdout, createLogger } from ${JSON.stringify(new URL("./logger.ts", import.meta.url).href)};
         const logger = createLogger({ level: "info" }, chunkedStdout());
         ${script}`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );

  it("shows a lone line within its flush interval, while the process goes on", async () => {
    const proc = child(`logger.info("first line"); setTimeout(() => process.exit(0), 5000);`);
    let seen = "";
    const line = await new Promise<{ time: string }>((resolve) =>
      proc.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("first line")) resolve(JSON.parse(seen.trim()) as { time: string });
      }),
    );
    // Read soon after it was logged (the flush interval, and a busy machine's margin), well
    // before the process ends: it did not wait for a full chunk or the exit.
    expect(Date.now() - Date.parse(line.time)).toBeLessThan(1000);
    proc.kill();
  });

  it("writes every line before the process exits, whole", async () => {
    const proc = child(`for (let n = 0; n < 500; n += 1) logger.info({ n }, "line"); process.exit(0);`);
    let out = "";
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => proc.on("close", resolve));
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, n) => n));
    expect(LOG_CHUNK_BYTES).toBe(4096);
    expect(LOG_FLUSH_MS).toBe(100);
  });
});
