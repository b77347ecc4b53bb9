// Starts the one process: reads config, loads the portal build, serves pages and API on one port.
import { serve } from "@hono/node-server";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./env.ts";
import { loadSite } from "./site/site.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const site = config.distDir ? await loadSite(config.distDir) : undefined;
  const app = createApp({ config, site });
  const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
    console.log(`Portal and API listening on http://${config.HOST}:${info.port}`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  process.exit(1);
});
