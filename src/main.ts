/**
 * Process entry: config → database → migrate → knowledge base → serve → shut down gracefully on
 * SIGTERM/SIGINT (src/serve.ts).
 */
import { loadConfig } from "./config.js";
import { createLogger } from "./log.js";
import { startServer, stopOnSignals } from "./serve.js";
import { describeDatabase } from "./config.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, config.logFormat);
  const running = await startServer(config, { log });
  stopOnSignals(running);
  log.info("listening", { url: `http://${config.host}:${running.port}/api/v1/mcp`, database: describeDatabase(config.databaseUrl) });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
