// drizzle-kit: `npm run db:generate` writes a new SQL migration into server/db/migrations from the
// schema; the server applies pending migrations at start (server/db/migrate.ts).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./server/db/schema/index.ts",
  out: "./server/db/migrations",
  strict: true,
  verbose: true,
});
