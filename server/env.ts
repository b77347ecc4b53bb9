// The only reader of process.env. Every setting the server takes is declared here with its default
// for development; a bad value stops the process at start-up with a list of what is wrong.
import { resolve } from "node:path";
import { z } from "zod";
import { PRODUCT_NAME } from "../contract/brand.ts";
import { mfaKeyProblem } from "./auth/mfa-secrets.ts";
import { signingKeyProblem } from "./auth/signing-keys.ts";
import { isEuCountry, type Seller } from "./domain/vat.ts";

const bool = z.enum(["true", "false", "1", "0", ""]).transform((v) => v === "true" || v === "1");
/** An optional setting: an empty string counts as unset, so `FOO=` in a .env file is harmless. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());
const perMinute = (fallback: number) => z.coerce.number().int().min(1).max(100_000).default(fallback);
const urlWithScheme = (schemes: string[], label: string) =>
  z
    .url({ error: `must be a URL (${label})` })
    .refine((v) => !URL.canParse(v) || schemes.includes(new URL(v).protocol), {
      error: `must start with ${schemes.map((s) => `${s}//`).join(" or ")}`,
    });

const signingKey = (kind: "private" | "private or public") =>
  z.string().superRefine((pem, ctx) => {
    const problem = signingKeyProblem(pem, kind);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

const emailAddress = z.email();
const MAILBOX_EXAMPLE = 'write it as support@example.com or "Name" <support@example.com>';

/**
 * What is wrong with a mail header setting that must be one mailbox: a bare address, or a display
 * name with the address in angle brackets (`"GenAI Studio" <no-reply@example.com>`; the name may
 * be plain words without quotes). The address itself is zod's e-mail check; `localhost` is taken
 * as its domain because the development default sends from it (production refuses it).
 */
export function mailboxProblem(value: string): string | undefined {
  // Checked before trimming: the value reaches nodemailer as it is, a trailing line break included.
  if ([...value].some((c) => c < " " || c === "\u007f"))
    return "must be one line, without control characters";
  const text = value.trim();
  if (text === "") return `is empty: ${MAILBOX_EXAMPLE}`;
  let inQuote = false;
  let escaped = false;
  const opens: number[] = [];
  const closes: number[] = [];
  let separator = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuote) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inQuote = false;
      continue;
    }
    if (c === '"') inQuote = true;
    else if (c === "<") opens.push(i);
    else if (c === ">") closes.push(i);
    else if ((c === "," || c === ";") && opens.length === closes.length) separator = true;
  }
  if (inQuote) return `has a " that is not closed: ${MAILBOX_EXAMPLE}`;
  if (separator || opens.length > 1 || closes.length > 1) {
    return `must be one address, not a list (a name with , or ; goes in double quotes): ${MAILBOX_EXAMPLE}`;
  }
  if (opens.length !== closes.length || (opens[0] ?? 0) > (closes[0] ?? 0)) {
    return `has a ${opens.length > closes.length ? "<" : ">"} without its ${opens.length > closes.length ? ">" : "<"}: ${MAILBOX_EXAMPLE}`;
  }
  let address = text;
  const open = opens[0];
  const close = closes[0];
  if (open !== undefined && close !== undefined) {
    if (close !== text.length - 1) return `has text after the closing >: ${MAILBOX_EXAMPLE}`;
    const name = text.slice(0, open).trim();
    const quoted = /^"(?:[^"\\]|\\.)*"$/.test(name);
    if (!quoted && /["@:\\()[\]]/.test(name)) {
      return `has a display name that needs double quotes around it (it contains " @ : \\ ( ) [ or ]): ${MAILBOX_EXAMPLE}`;
    }
    address = text.slice(open + 1, close).trim();
  }
  const atLocalhost = /^[^\s@"<>]+@localhost$/i.test(address);
  if (!atLocalhost && !emailAddress.safeParse(address).success) {
    return `"${address}" is not an e-mail address: ${MAILBOX_EXAMPLE}`;
  }
  return undefined;
}

/** A setting that is one mailbox (see mailboxProblem); the message says what is wrong. */
const mailbox = z.string().superRefine((value, ctx) => {
  const problem = mailboxProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Port the one process listens on. */
  PORT: z.coerce.number().int().min(0).max(65535).default(4321),
  /** Interface to bind; 0.0.0.0 in a container. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Where PGlite's database, the mail outbox and the development JWT secret live. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** The built portal to serve; empty disables serving pages (API-only deployment). */
  DIST_DIR: z.string().default("./dist"),
  /** Set when one reverse proxy in front of us sets X-Forwarded-Proto / X-Forwarded-For. */
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  /** PostgreSQL server (postgres://user:pass@host:5432/db). Unset: embedded PGlite in DATA_DIR/db. */
  DATABASE_URL: optional(urlWithScheme(["postgres:", "postgresql:"], "postgres://...")),
  /** PEM private key (Ed25519, or P-256 for ES256) that signs access tokens; `\n` escapes allowed. Development: generated into DATA_DIR/jwt-signing-key.pem. */
  JWT_SIGNING_KEY: optional(signingKey("private")),
  /** After a rotation: the previous key's PEM (private or public). Its tokens verify until they expire. */
  JWT_PREVIOUS_SIGNING_KEY: optional(signingKey("private or public")),
  /** 32 bytes in Base64 that seal the two-factor secrets (openssl rand -base64 32). Development: generated into DATA_DIR/mfa-encryption-key. */
  MFA_ENCRYPTION_KEY: optional(
    z.string().refine((key) => mfaKeyProblem(key) === undefined, {
      error: "must be 32 bytes in Base64 (openssl rand -base64 32)",
    }),
  ),
  JWT_ISSUER: z.string().min(1).default("genai-portal"),
  JWT_AUDIENCE: z.string().min(1).default("genai-portal-api"),
  /** Lifetime of an access token, in seconds (default 24 h). */
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(86_400),

  /** Where the portal lives; links in mails and checkout redirects are built from it. */
  PORTAL_URL: urlWithScheme(["http:", "https:"], "https://portal.example.com").default(
    "http://localhost:4321",
  ),
  /** Origins allowed to call the API from a browser, comma-separated. Default: PORTAL_URL's origin. */
  CORS_ORIGINS: optional(z.string()),

  /** smtp:// or smtps:// URL of a mail server. Unset: the outbox in DATA_DIR/outbox (development). */
  SMTP_URL: optional(urlWithScheme(["smtp:", "smtps:"], "smtps://user:pass@smtp.example.com:465")),
  /** Sender of account mails: one mailbox, `no-reply@example.com` or `"Name" <no-reply@example.com>`. */
  MAIL_FROM: mailbox.default(`"${PRODUCT_NAME}" <no-reply@localhost>`),
  /**
   * Where replies to account mails go: the support mailbox. Billing and security mails ask the
   * customer to reply (a dispute hold, a mistaken charge, a deletion they did not make), and the
   * sender is usually a no-reply address. Unset: replies go to MAIL_FROM.
   */
  MAIL_REPLY_TO: optional(mailbox),

  /** Shares rate-limit counters between API instances. Unset: counters in this process's memory. */
  REDIS_URL: optional(urlWithScheme(["redis:", "rediss:"], "redis://host:6379")),

  /** Failed sign-ins per minute per client IP (never per account alone: no one can lock an owner out). */
  RATE_LIMIT_TOKEN_PER_MINUTE: perMinute(10),
  /** Failed sign-ins per minute per (username, client IP). */
  RATE_LIMIT_LOGIN_PAIR_FAILURES_PER_MINUTE: perMinute(5),
  /** Registrations per minute per client IP. */
  RATE_LIMIT_REGISTER_PER_MINUTE: perMinute(5),
  /** Reset-request and resend-verification calls per minute per e-mail address (each call its own count). */
  RATE_LIMIT_EMAIL_PER_MINUTE: perMinute(3),
  /** Reset-request and resend-verification calls per minute per client IP. */
  RATE_LIMIT_EMAIL_IP_PER_MINUTE: perMinute(10),
  /** Signed-in writes (checkout, top-up checkout, plan change, cancel, API key creation) per minute per user. */
  RATE_LIMIT_ACCOUNT_WRITE_PER_MINUTE: perMinute(20),
  /** Failed service-key authentications (introspect, consume) per minute per client IP. */
  RATE_LIMIT_SERVICE_AUTH_FAILURES_PER_MINUTE: perMinute(10),
  /** Wrong second factors (code, recovery code, passkey) per account an hour; past it the password step answers 429. */
  RATE_LIMIT_MFA_FAILURES_PER_HOUR: perMinute(10),
  /** Reset, verification, e-mail change and invitation mails per recipient mailbox an hour (together). */
  RATE_LIMIT_EMAIL_RECIPIENT_PER_HOUR: perMinute(10),
  /** Reset, verification, e-mail change and invitation mails per recipient mailbox a day (together). */
  RATE_LIMIT_EMAIL_RECIPIENT_PER_DAY: perMinute(20),

  /** Stripe secret key (sk_live_… / sk_test_…). Unset: the embedded local checkout (refused in production). */
  STRIPE_SECRET_KEY: optional(
    z.string().regex(/^(sk|rk)_(test|live)_\w+$/, { error: "must look like sk_test_… or sk_live_…" }),
  ),
  /** Signing secret of the Stripe webhook endpoint (whsec_…). Unset in development: derived from the JWT secret. */
  STRIPE_WEBHOOK_SECRET: optional(z.string().min(16, { error: "must be at least 16 characters" })),
  /** Where the local provider delivers its webhook events. Default: http://127.0.0.1:PORT/v1/webhooks/stripe. */
  LOCAL_WEBHOOK_URL: optional(urlWithScheme(["http:", "https:"], "http://127.0.0.1:4321/v1/webhooks/stripe")),
  /** Serve the local checkout's pages (/_checkout: anyone pays with the test card 4242) although HOST is not a loopback address. */
  LOCAL_CHECKOUT_ON_PUBLIC_HOST: bool.default(false),
  /** Origin the browser reaches this server on, for local checkout page URLs. Default: PORTAL_URL's origin when it is on PORT, else http://HOST:PORT. */
  LOCAL_CHECKOUT_URL: optional(urlWithScheme(["http:", "https:"], "http://localhost:4321")),
  /** How often the local provider's billing job runs (renewals, period ends, webhook retries). */
  BILLING_JOB_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),

  /**
   * Charge API keys' generations through credit leases (decision 051): an instance holds a slice of
   * a key's spending and decides its charges without the organisation's lock. On by default (issue
   * 35: it is what brings a charge within its floor). Off only for a rolling upgrade from a version
   * before migration 0023, until no such instance runs: those do not count reservations.
   */
  CREDIT_LEASES: bool.default(true),

  /** Credits a user receives once, when their e-mail address is verified (granted by billing). */
  FREE_INITIAL_CREDITS: z.coerce.number().int().min(0).max(1_000_000).default(50),

  /** The most credits one goodwill grant by a support user may give (admins have no cap). */
  SUPPORT_GRANT_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(500),
  /** The most credits one support user may grant in a Berlin day, all customers together. */
  SUPPORT_GRANT_DAILY_LIMIT: z.coerce.number().int().min(0).max(10_000_000).default(2_000),

  // OPERATOR: the business that sells, as every invoice names it. Its country decides VAT
  // (server/domain/vat.ts): an EU country. With Stripe, set the same details in the Stripe account.
  SELLER_NAME: z.string().min(1).max(200).default("Example Operator GmbH"),
  /** Postal address, lines separated by `\n`. */
  SELLER_ADDRESS: z.string().min(1).max(500).default("Musterstraße 1\\n10115 Berlin\\nGermany"),
  SELLER_COUNTRY: z
    .string()
    .refine((c) => isEuCountry(c), { error: "must be the ISO code of an EU country, such as DE" })
    .default("DE"),
  SELLER_VAT_ID: z.string().min(4).max(20).default("DE000000000"),
});

export type Env = z.infer<typeof envSchema>;

export interface RateLimitConfig {
  tokenPerMinute: number;
  loginPairFailuresPerMinute: number;
  registerPerMinute: number;
  emailPerMinute: number;
  emailIpPerMinute: number;
  accountWritePerMinute: number;
  serviceAuthFailuresPerMinute: number;
  mfaFailuresPerHour: number;
  emailRecipientPerHour: number;
  emailRecipientPerDay: number;
}

export interface Config extends Env {
  dataDir: string;
  distDir: string | undefined;
  isProduction: boolean;
  /** Serve /_dev (devPagesEnabled). */
  devPages: boolean;
  /** PORTAL_URL without a trailing slash, ready for `${portalUrl}/verify-email/...`. */
  portalUrl: string;
  corsOrigins: string[];
  rateLimits: RateLimitConfig;
  seller: Seller;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.problems = problems;
  }
}

function isLocalHost(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/**
 * What production must set explicitly. A development default here would be a silent failure in
 * production: mail that never leaves the machine, a database on the container's disk, tokens
 * signed with a key nobody chose. Works on the raw strings so that these problems are listed
 * together with any format problems.
 */
function productionProblems(source: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const missing = (name: string) => !source[name];
  if (missing("JWT_SIGNING_KEY"))
    problems.push("JWT_SIGNING_KEY: required in production (openssl genpkey -algorithm ed25519)");
  if (missing("MFA_ENCRYPTION_KEY"))
    problems.push("MFA_ENCRYPTION_KEY: required in production (openssl rand -base64 32)");
  const portal = source.PORTAL_URL;
  if (!portal) problems.push("PORTAL_URL: required in production (the portal's public https URL)");
  else if (URL.canParse(portal) && new URL(portal).protocol !== "https:" && !isLocalHost(portal)) {
    problems.push("PORTAL_URL: must be https in production");
  }
  if (missing("DATABASE_URL")) {
    problems.push("DATABASE_URL: required in production (PGlite is for development and tests)");
  }
  if (missing("SMTP_URL")) problems.push("SMTP_URL: required in production (the outbox only writes files)");
  if (missing("MAIL_FROM")) problems.push("MAIL_FROM: required in production (sender of account mails)");
  if (missing("MAIL_REPLY_TO")) {
    problems.push(
      "MAIL_REPLY_TO: required in production (the support mailbox: mails ask customers to reply)",
    );
  }
  for (const name of ["MAIL_FROM", "MAIL_REPLY_TO"]) {
    if (/@localhost\s*>?$/i.test(source[name]?.trim() ?? "")) {
      problems.push(`${name}: must not be at localhost in production (mail servers refuse it)`);
    }
  }
  if (missing("STRIPE_SECRET_KEY")) {
    problems.push("STRIPE_SECRET_KEY: required in production (the local checkout takes no real money)");
  }
  if (missing("STRIPE_WEBHOOK_SECRET")) {
    problems.push("STRIPE_WEBHOOK_SECRET: required in production (signing secret of the webhook endpoint)");
  }
  // The defaults name an example business: no real invoice or billing history may show it.
  for (const name of ["SELLER_NAME", "SELLER_ADDRESS", "SELLER_VAT_ID"]) {
    if (missing(name)) problems.push(`${name}: required in production (the seller on every invoice)`);
  }
  return problems;
}

function parseOrigins(
  list: string | undefined,
  portalUrl: string,
): { origins: string[]; problems: string[] } {
  if (!list) return { origins: [new URL(portalUrl).origin], problems: [] };
  const origins: string[] = [];
  const problems: string[] = [];
  for (const raw of list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      const url = new URL(raw);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
      origins.push(url.origin);
    } catch {
      problems.push(`CORS_ORIGINS: "${raw}" is not an http(s) origin`);
    }
  }
  return { origins, problems };
}

/** Whether a listening address reaches this machine only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * The development pages (/_dev: the outbox with live reset links, the billing clock) exist only in
 * development and on loopback (ACCOUNT-SECURITY.md): HOST=0.0.0.0 or a production start hides them.
 */
export function devPagesEnabled(config: Pick<Config, "NODE_ENV" | "HOST">): boolean {
  return config.NODE_ENV === "development" && isLoopbackHost(config.HOST);
}

/** The start log's line about the development pages: on, or off and why. */
export function devPagesNote(config: Pick<Config, "NODE_ENV" | "HOST">): string {
  if (devPagesEnabled(config))
    return "Development pages on: /_dev/mail (the outbox); the billing clock: POST /_dev/billing/advance (npm run billing:advance); disputes: POST /_dev/billing/disputes and /_dev/billing/disputes/{id}/close";
  const why =
    config.NODE_ENV === "development"
      ? `HOST=${config.HOST} is not a loopback address`
      : `NODE_ENV=${config.NODE_ENV}`;
  return `Development pages off (${why}): /_dev answers 404`;
}

/**
 * The local checkout (/_checkout, without Stripe) takes test cards: anyone who reaches it "pays"
 * with 4242. Like the development pages it is served on a loopback HOST only, unless
 * LOCAL_CHECKOUT_ON_PUBLIC_HOST says that a public one is meant (a shared test server).
 */
export function localCheckoutEnabled(
  config: Pick<Config, "HOST" | "LOCAL_CHECKOUT_ON_PUBLIC_HOST">,
): boolean {
  return isLoopbackHost(config.HOST) || config.LOCAL_CHECKOUT_ON_PUBLIC_HOST;
}

/** The start log's line about the local checkout (when it is the provider): on, or off and why. */
export function localCheckoutNote(config: Pick<Config, "HOST" | "LOCAL_CHECKOUT_ON_PUBLIC_HOST">): string {
  if (!localCheckoutEnabled(config)) {
    return `Local checkout off (HOST=${config.HOST} is not a loopback address; LOCAL_CHECKOUT_ON_PUBLIC_HOST=1 serves it): /_checkout answers 404 and new checkouts 503`;
  }
  return isLoopbackHost(config.HOST)
    ? "Local checkout on at /_checkout (test cards)"
    : `Local checkout on at /_checkout (test cards) on HOST=${config.HOST}: LOCAL_CHECKOUT_ON_PUBLIC_HOST is set`;
}

/** What works but leaves something broken: the start log says it, with what breaks. */
export function startupWarnings(config: Pick<Config, "NODE_ENV" | "TRUST_PROXY">): string[] {
  if (config.NODE_ENV !== "production" || config.TRUST_PROXY) return [];
  return [
    "TRUST_PROXY is off in production. Behind a proxy or load balancer every client shares its address: " +
      "the per-address limits (logins, registrations, failed service keys) count all clients together, " +
      "and HSTS is never sent (the server cannot see that clients use https). Set TRUST_PROXY=true when " +
      "one trusted proxy is in front; leave it off only when clients connect to this server directly.",
  ];
}

/** Parses an environment (process.env by default) into the server's configuration. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}`);
  if (source.NODE_ENV === "production") problems.push(...productionProblems(source));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const env = parsed.data;
  const cors = parseOrigins(env.CORS_ORIGINS, env.PORTAL_URL);
  if (cors.problems.length > 0) throw new ConfigError(cors.problems);
  return {
    ...env,
    dataDir: resolve(env.DATA_DIR),
    distDir: env.DIST_DIR ? resolve(env.DIST_DIR) : undefined,
    isProduction: env.NODE_ENV === "production",
    devPages: devPagesEnabled(env),
    portalUrl: env.PORTAL_URL.replace(/\/+$/, ""),
    corsOrigins: cors.origins,
    seller: {
      name: env.SELLER_NAME,
      address: env.SELLER_ADDRESS.replaceAll("\\n", "\n"),
      country: env.SELLER_COUNTRY,
      vatId: env.SELLER_VAT_ID,
    },
    rateLimits: {
      tokenPerMinute: env.RATE_LIMIT_TOKEN_PER_MINUTE,
      loginPairFailuresPerMinute: env.RATE_LIMIT_LOGIN_PAIR_FAILURES_PER_MINUTE,
      registerPerMinute: env.RATE_LIMIT_REGISTER_PER_MINUTE,
      emailPerMinute: env.RATE_LIMIT_EMAIL_PER_MINUTE,
      emailIpPerMinute: env.RATE_LIMIT_EMAIL_IP_PER_MINUTE,
      accountWritePerMinute: env.RATE_LIMIT_ACCOUNT_WRITE_PER_MINUTE,
      serviceAuthFailuresPerMinute: env.RATE_LIMIT_SERVICE_AUTH_FAILURES_PER_MINUTE,
      mfaFailuresPerHour: env.RATE_LIMIT_MFA_FAILURES_PER_HOUR,
      emailRecipientPerHour: env.RATE_LIMIT_EMAIL_RECIPIENT_PER_HOUR,
      emailRecipientPerDay: env.RATE_LIMIT_EMAIL_RECIPIENT_PER_DAY,
    },
  };
}
