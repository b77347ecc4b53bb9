// The only reader of process.env. Every setting the server takes is declared here with its default
// for development; a bad value stops the process at start-up with a list of what is wrong.
import { resolve } from "node:path";
import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0", ""]).transform((v) => v === "true" || v === "1");

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Port the one process listens on. */
  PORT: z.coerce.number().int().min(0).max(65535).default(4321),
  /** Interface to bind; 0.0.0.0 in a container. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Where PGlite's database and the mail outbox live. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** The built portal to serve; empty disables serving pages (API-only deployment). */
  DIST_DIR: z.string().default("./dist"),
  /** Set when a reverse proxy terminates TLS and sets X-Forwarded-Proto / X-Forwarded-For. */
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  dataDir: string;
  distDir: string | undefined;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.problems = problems;
  }
}

/** Parses an environment (process.env by default) into the server's configuration. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}`));
  }
  const env = parsed.data;
  return {
    ...env,
    dataDir: resolve(env.DATA_DIR),
    distDir: env.DIST_DIR ? resolve(env.DIST_DIR) : undefined,
  };
}
