import { describe, expect, it } from "vitest";
import { ConfigError, devPagesEnabled, devPagesNote, loadConfig, startupWarnings } from "./env.ts";
import { newSigningKeyPem } from "./testing/signing-keys.ts";

const SIGNING_KEY = newSigningKeyPem();

const PRODUCTION = {
  NODE_ENV: "production",
  JWT_SIGNING_KEY: SIGNING_KEY,
  MFA_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
  PORTAL_URL: "https://portal.example.com/",
  DATABASE_URL: "postgres://app:secret@db.internal:5432/portal",
  SMTP_URL: "smtps://mailer:secret@smtp.example.com:465",
  MAIL_FROM: '"AI Studio" <no-reply@example.com>',
  MAIL_REPLY_TO: '"AI Studio support" <support@example.com>',
  STRIPE_SECRET_KEY: "sk_live_abc123",
  STRIPE_WEBHOOK_SECRET: "whsec_0123456789abcdef",
  SELLER_NAME: "AI Studio GmbH",
  SELLER_ADDRESS: "Hauptstraße 5\\n10115 Berlin\\nGermany",
  SELLER_VAT_ID: "DE136695976",
};

function problemsOf(source: Record<string, string>): string[] {
  try {
    loadConfig(source);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loadConfig", () => {
  it("development needs nothing: PGlite, the outbox and the local portal", () => {
    const config = loadConfig({});
    expect(config.NODE_ENV).toBe("development");
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.JWT_SIGNING_KEY).toBeUndefined();
    expect(config.portalUrl).toBe("http://localhost:4321");
    expect(config.corsOrigins).toEqual(["http://localhost:4321"]);
    expect(config.JWT_TTL_SECONDS).toBe(86_400);
    expect(config.rateLimits).toEqual({
      tokenPerMinute: 10,
      loginPairFailuresPerMinute: 5,
      registerPerMinute: 5,
      emailPerMinute: 3,
      emailIpPerMinute: 10,
      accountWritePerMinute: 20,
      serviceAuthFailuresPerMinute: 10,
      mfaFailuresPerHour: 10,
      emailRecipientPerHour: 10,
      emailRecipientPerDay: 20,
    });
    expect(config.FREE_INITIAL_CREDITS).toBe(50);
    expect(config.seller).toEqual({
      name: "Example Operator GmbH",
      address: "Musterstraße 1\n10115 Berlin\nGermany",
      country: "DE",
      vatId: "DE000000000",
    });
  });

  it("reads the seller, with \\n as line breaks, and refuses a seller country outside the EU", () => {
    const config = loadConfig({ SELLER_ADDRESS: "Rue 1\\n75001 Paris", SELLER_COUNTRY: "FR" });
    expect(config.seller).toMatchObject({ address: "Rue 1\n75001 Paris", country: "FR" });
    expect(problemsOf({ SELLER_COUNTRY: "US" })).toEqual([
      "SELLER_COUNTRY: must be the ISO code of an EU country, such as DE",
    ]);
  });

  it("accepts a complete production configuration", () => {
    const config = loadConfig(PRODUCTION);
    expect(config.isProduction).toBe(true);
    expect(config.portalUrl).toBe("https://portal.example.com");
    expect(config.corsOrigins).toEqual(["https://portal.example.com"]);
  });

  it("lists every missing production setting at once", () => {
    expect(problemsOf({ NODE_ENV: "production" })).toEqual([
      expect.stringMatching(/^JWT_SIGNING_KEY: required/),
      expect.stringMatching(/^MFA_ENCRYPTION_KEY: required/),
      expect.stringMatching(/^PORTAL_URL: required/),
      expect.stringMatching(/^DATABASE_URL: required/),
      expect.stringMatching(/^SMTP_URL: required/),
      expect.stringMatching(/^MAIL_FROM: required/),
      expect.stringMatching(/^MAIL_REPLY_TO: required/),
      expect.stringMatching(/^STRIPE_SECRET_KEY: required/),
      expect.stringMatching(/^STRIPE_WEBHOOK_SECRET: required/),
      expect.stringMatching(/^SELLER_NAME: required/),
      expect.stringMatching(/^SELLER_ADDRESS: required/),
      expect.stringMatching(/^SELLER_VAT_ID: required/),
    ]);
  });

  it("lists format problems together with missing production settings", () => {
    const problems = problemsOf({ ...PRODUCTION, JWT_SIGNING_KEY: "short", SMTP_URL: "" });
    expect(problems).toEqual([
      expect.stringMatching(/^JWT_SIGNING_KEY: must be a PEM private key/),
      expect.stringMatching(/^SMTP_URL: required/),
    ]);
  });

  it("takes only 32 bytes in Base64 as MFA_ENCRYPTION_KEY, without echoing it", () => {
    const problems = problemsOf({ ...PRODUCTION, MFA_ENCRYPTION_KEY: "c2hvcnRTZWNyZXQ=" });
    expect(problems).toEqual(["MFA_ENCRYPTION_KEY: must be 32 bytes in Base64 (openssl rand -base64 32)"]);
    expect(problems.join("\n")).not.toContain("c2hvcnRTZWNyZXQ=");
  });

  it("never echoes a secret in its messages", () => {
    const problems = problemsOf({ ...PRODUCTION, JWT_SIGNING_KEY: "tooShortSecretValue" });
    expect(problems.join("\n")).not.toContain("tooShortSecretValue");
  });

  it("takes a signing key with \\n escapes (one line in a .env file), and refuses an RSA or HMAC key", async () => {
    const escaped = SIGNING_KEY.replaceAll("\n", "\\n");
    expect(escaped).not.toContain("\n-");
    expect(problemsOf({ ...PRODUCTION, JWT_SIGNING_KEY: escaped })).toEqual([]);
    const { generateKeyPairSync } = await import("node:crypto");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      format: "pem",
      type: "pkcs8",
    });
    expect(problemsOf({ ...PRODUCTION, JWT_SIGNING_KEY: String(rsa) })).toEqual([
      "JWT_SIGNING_KEY: must be an Ed25519 or P-256 (ES256) key",
    ]);
    expect(problemsOf({ ...PRODUCTION, JWT_PREVIOUS_SIGNING_KEY: "x".repeat(40) })).toEqual([
      expect.stringMatching(/^JWT_PREVIOUS_SIGNING_KEY: must be a PEM key/),
    ]);
  });

  it("refuses a plain-http portal in production, except on localhost", () => {
    expect(problemsOf({ ...PRODUCTION, PORTAL_URL: "http://portal.example.com" })).toEqual([
      "PORTAL_URL: must be https in production",
    ]);
    expect(problemsOf({ ...PRODUCTION, PORTAL_URL: "http://localhost:4321" })).toEqual([]);
  });

  it.each([
    ["DATABASE_URL", "mysql://db/x", /^DATABASE_URL: must start with postgres:\/\/ or postgresql:\/\//],
    ["SMTP_URL", "http://mail", /^SMTP_URL: must start with smtp:\/\/ or smtps:\/\//],
    ["REDIS_URL", "not a url", /^REDIS_URL: must be a URL/],
    ["PORTAL_URL", "ftp://portal", /^PORTAL_URL: must start with http:\/\/ or https:\/\//],
    ["JWT_TTL_SECONDS", "10", /^JWT_TTL_SECONDS:/],
    ["RATE_LIMIT_TOKEN_PER_MINUTE", "0", /^RATE_LIMIT_TOKEN_PER_MINUTE:/],
    ["NODE_ENV", "staging", /^NODE_ENV:/],
  ])("rejects a bad %s", (name, value, message) => {
    expect(problemsOf({ [name]: value })).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    "no-reply@example.com",
    '"GenAI Studio" <no-reply@example.com>',
    "GenAI Studio <no-reply@example.com>",
    '"Studio, Support \\"EU\\"" <support@example.co.uk>',
    "<support@example.com>",
    '"AI Studio" <no-reply@localhost>',
  ])("takes %s as one mailbox in MAIL_FROM and MAIL_REPLY_TO", (value) => {
    const config = loadConfig({ MAIL_FROM: value, MAIL_REPLY_TO: value });
    expect([config.MAIL_FROM, config.MAIL_REPLY_TO]).toEqual([value, value]);
  });

  it.each([
    ["support@example", /"support@example" is not an e-mail address/],
    ["support example.com", /"support example.com" is not an e-mail address/],
    ['"Support" <support example.com>', /"support example.com" is not an e-mail address/],
    ["a@example.com, b@example.com", /must be one address, not a list/],
    ["a@example.com; b@example.com", /must be one address, not a list/],
    ["<a@example.com> <b@example.com>", /must be one address, not a list/],
    ["Studio, Support <support@example.com>", /must be one address, not a list \(a name with , or ; goes/],
    ['"GenAI Studio <support@example.com>', /has a " that is not closed/],
    ['"GenAI Studio" <support@example.com', /has a < without its >/],
    ['"GenAI Studio" support@example.com>', /has a > without its </],
    ['"GenAI Studio" <support@example.com> x', /has text after the closing >/],
    ["Support @ Studio <support@example.com>", /has a display name that needs double quotes/],
    ['"GenAI" Studio <support@example.com>', /has a display name that needs double quotes/],
  ])("refuses %s as MAIL_FROM and MAIL_REPLY_TO, saying what is wrong", (value, message) => {
    const problems = problemsOf({ MAIL_FROM: value, MAIL_REPLY_TO: value });
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^MAIL_FROM: ${message.source}`)),
      expect.stringMatching(new RegExp(`^MAIL_REPLY_TO: ${message.source}`)),
    ]);
    expect(problems[0]).toContain('support@example.com or "Name" <support@example.com>');
  });

  it("refuses an empty MAIL_FROM, a line break, and a sender at localhost in production", () => {
    expect(problemsOf({ MAIL_FROM: "" })).toEqual([expect.stringMatching(/^MAIL_FROM: is empty/)]);
    expect(problemsOf({ MAIL_REPLY_TO: "help@example.com\r\nBcc: x@example.com" })).toEqual([
      "MAIL_REPLY_TO: must be one line, without control characters",
    ]);
    expect(problemsOf({ MAIL_REPLY_TO: "help@example.com\r\n" })).toEqual([
      "MAIL_REPLY_TO: must be one line, without control characters",
    ]);
    expect(problemsOf({ MAIL_REPLY_TO: "" })).toEqual([]);
    const local = {
      ...PRODUCTION,
      MAIL_FROM: '"AI Studio" <no-reply@localhost>',
      MAIL_REPLY_TO: '"Help" <help@LOCALHOST >',
    };
    expect(problemsOf(local)).toEqual([
      "MAIL_FROM: must not be at localhost in production (mail servers refuse it)",
      "MAIL_REPLY_TO: must not be at localhost in production (mail servers refuse it)",
    ]);
  });

  it("treats an empty optional setting as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", REDIS_URL: "", SMTP_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("reads CORS origins as a comma list of origins", () => {
    const config = loadConfig({ CORS_ORIGINS: "https://a.example.com/, https://cdn.example.net:8443/path" });
    expect(config.corsOrigins).toEqual(["https://a.example.com", "https://cdn.example.net:8443"]);
    expect(problemsOf({ CORS_ORIGINS: "https://ok.example.com,javascript:alert(1)" })).toEqual([
      'CORS_ORIGINS: "javascript:alert(1)" is not an http(s) origin',
    ]);
  });

  it("reads the rate limits", () => {
    const config = loadConfig({ RATE_LIMIT_REGISTER_PER_MINUTE: "50", RATE_LIMIT_EMAIL_PER_MINUTE: "7" });
    expect(config.rateLimits.registerPerMinute).toBe(50);
    expect(config.rateLimits.emailPerMinute).toBe(7);
  });
});

describe("startupWarnings", () => {
  it("warns in production without TRUST_PROXY, naming what breaks", () => {
    const [warning] = startupWarnings({ NODE_ENV: "production", TRUST_PROXY: false });
    expect(warning).toMatch(/TRUST_PROXY is off in production/);
    expect(warning).toMatch(/per-address limits/);
    expect(warning).toMatch(/HSTS is never sent/);
  });

  it.each([
    ["production behind a trusted proxy", "production", true],
    ["development", "development", false],
    ["tests", "test", false],
  ] as const)("says nothing in %s", (_case, NODE_ENV, TRUST_PROXY) => {
    expect(startupWarnings({ NODE_ENV, TRUST_PROXY })).toEqual([]);
  });
});

describe("the development pages", () => {
  it.each([
    ["development", "127.0.0.1", true],
    ["development", "localhost", true],
    ["development", "::1", true],
    ["development", "[::1]", true],
    ["development", "127.0.0.53", true],
    ["development", "0.0.0.0", false],
    ["development", "::", false],
    ["development", "192.168.1.20", false],
    ["development", "127.example.com", false],
    ["test", "127.0.0.1", false],
    ["production", "127.0.0.1", false],
  ] as const)("NODE_ENV=%s on HOST=%s: %s", (NODE_ENV, HOST, on) => {
    expect(devPagesEnabled({ NODE_ENV, HOST })).toBe(on);
    // loadConfig decides it the same way.
    if (NODE_ENV === "development") expect(loadConfig({ NODE_ENV, HOST }).devPages).toBe(on);
  });

  it("the start log says whether they are on, and why not", () => {
    expect(devPagesNote({ NODE_ENV: "development", HOST: "127.0.0.1" })).toMatch(/^Development pages on/);
    expect(devPagesNote({ NODE_ENV: "development", HOST: "0.0.0.0" })).toBe(
      "Development pages off (HOST=0.0.0.0 is not a loopback address): /_dev answers 404",
    );
    expect(devPagesNote({ NODE_ENV: "test", HOST: "127.0.0.1" })).toBe(
      "Development pages off (NODE_ENV=test): /_dev answers 404",
    );
  });
});
